package runtime

import (
	"os"
	"path/filepath"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// fileID names a file by device and inode, whatever its names.
type fileID struct{ dev, ino uint64 }

// protectedIn returns the files of protected that lie in the directory
// root, and every directory between them and root: what a plugin granted
// root for writing may read but not change (Grants.Protected). Paths are
// resolved first (links included), and a file is in root when one of its
// ancestors is root itself (the same device and inode); a missing file
// is skipped.
func protectedIn(root string, protected []string) map[fileID]bool {
	fi, err := os.Stat(root)
	if err != nil {
		return nil
	}
	rootID, ok := idOf(fi)
	if !ok {
		return nil
	}
	ids := map[fileID]bool{}
	for _, p := range protected {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		var chain []fileID
		for q := real; ; q = filepath.Dir(q) {
			fi, err := os.Lstat(q)
			if err != nil {
				break
			}
			id, _ := idOf(fi)
			if id == rootID {
				for _, c := range chain {
					ids[c] = true
				}
				break
			}
			chain = append(chain, id)
			if filepath.Dir(q) == q {
				break
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return ids
}

// guarded says whether the entry at p (not following a last link) is
// protected: removing, renaming or replacing it is refused.
func (r *rootFS) guarded(p string) bool {
	if r.protected == nil {
		return false
	}
	fi, err := r.root.Lstat(rel(p))
	if err != nil {
		return false
	}
	id, _ := idOf(fi)
	return r.protected[id]
}

// guardedFile says whether the opened file f is protected.
func (r *rootFS) guardedFile(f *os.File) bool {
	if r.protected == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return true // cannot tell: refused
	}
	id, _ := idOf(fi)
	return r.protected[id]
}

// errProtected is what changing a protected file or its directories
// fails with.
const errProtected = experimentalsys.EACCES
