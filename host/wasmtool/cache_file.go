package wasmtool

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// fileEntry remembers the sha256 of a plugin file as it was when last
// read, with what the file system says of it: as long as none of that
// changes (the kernel updates the change time on any write, and no user
// can set it), the file is the one hashed, and a cached description can
// be found without reading and hashing megabytes first. The background
// load reads the file anyway and checks the sum before any call.
type fileEntry struct {
	Format int    `json:"format"`
	Path   string `json:"path"`
	Stat   string `json:"stat"`
	SHA256 string `json:"sha256"`
}

func (c *DescribeCache) filePath(abs string) string {
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(c.dir, "files", hex.EncodeToString(sum[:])+".json")
}

// fileSum is the sha256 remembered for the file at path, if its stat is
// unchanged since.
func (c *DescribeCache) fileSum(path string) (string, bool) {
	if c.writeOnly {
		return "", false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	st, ok := statKey(abs)
	if !ok {
		return "", false
	}
	b, err := os.ReadFile(c.filePath(abs))
	if err != nil {
		return "", false
	}
	e, err := decodeFileEntry(b)
	if err != nil {
		c.log.Debug("describe cache: file entry ignored", "file", c.filePath(abs), "err", err)
		return "", false
	}
	if e.Path != abs || e.Stat != st {
		return "", false
	}
	return e.SHA256, true
}

// decodeFileEntry decodes a file entry, checking every field.
func decodeFileEntry(b []byte) (*fileEntry, error) {
	var e fileEntry
	if err := decodeStrict(b, &e); err != nil {
		return nil, err
	}
	if e.Format != cacheFormat {
		return nil, fmt.Errorf("format %d, not %d", e.Format, cacheFormat)
	}
	if raw, err := hex.DecodeString(e.SHA256); err != nil || len(raw) != sha256.Size {
		return nil, fmt.Errorf("sha256 %.80q is not one", e.SHA256)
	}
	if e.Path == "" || e.Stat == "" {
		return nil, fmt.Errorf("no path or stat")
	}
	return &e, nil
}

// putFileSum remembers sum for the file at path, as it is now. The stat
// is taken before the caller read the file (statBefore), so that a write
// between the stat and the read makes the entry stale, never wrong.
func (c *DescribeCache) putFileSum(path, statBefore, sum string) {
	abs, err := filepath.Abs(path)
	if err != nil || statBefore == "" {
		return
	}
	b, err := json.Marshal(fileEntry{Format: cacheFormat, Path: abs, Stat: statBefore, SHA256: sum})
	if err != nil {
		return
	}
	c.write(c.filePath(abs), b)
}

// stat is the stat key of path, or "" where the platform has none.
func stat(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	st, _ := statKey(abs)
	return st
}

// dropFileSum forgets the sum of the file at path.
func (c *DescribeCache) dropFileSum(path string) {
	if abs, err := filepath.Abs(path); err == nil {
		os.Remove(c.filePath(abs))
	}
}
