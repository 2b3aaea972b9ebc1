package runtime

import (
	"io/fs"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
)

// stopFS is a granted directory as one call sees it: opening, reading and
// writing a file first check that the call is still on (callState.enter),
// so that a guest looping over large reads or writes stops at its
// deadline. Each other operation is a single bounded system call. In a
// writable grant (w set), what the call adds is counted against its disk
// caps (diskcap.go).
type stopFS struct {
	experimentalsys.FS
	st *callState
	w  *mount // the grant, if writable
}

func (s stopFS) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	s.st.enter()
	if p != "." {
		// (wazero opens each granted directory itself, as ".", when it
		// makes the instance: that reads nothing.)
		s.st.sawFiles("opens " + p + " in a granted directory")
	}
	if errno := s.st.opened(); errno != 0 {
		return nil, errno
	}
	created, errno := s.creates(p, flag)
	if errno != 0 {
		s.st.openFiles--
		return nil, errno
	}
	f, errno := s.FS.OpenFile(p, flag, perm)
	if errno != 0 {
		s.st.openFiles--
		if created {
			s.st.undoEntry()
		}
		return nil, errno
	}
	sf := stopFile{File: f, st: s.st, name: p, counted: new(bool), dirents: new(uint64)}
	*sf.counted = true
	if s.w != nil && flag&(experimentalsys.O_WRONLY|experimentalsys.O_RDWR) != 0 {
		sf.w, sf.appending = s.w, flag&experimentalsys.O_APPEND != 0
	}
	return sf, 0
}

// Looking at a file is reading the world too (Observed.Files).

func (s stopFS) Stat(p string) (sys.Stat_t, experimentalsys.Errno) {
	s.st.sawFiles("looks at " + p + " in a granted directory")
	return s.FS.Stat(p)
}

func (s stopFS) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) {
	s.st.sawFiles("looks at " + p + " in a granted directory")
	return s.FS.Lstat(p)
}

func (s stopFS) Readlink(p string) (string, experimentalsys.Errno) {
	s.st.sawFiles("reads the link " + p + " in a granted directory")
	return s.FS.Readlink(p)
}

type stopFile struct {
	experimentalsys.File
	st        *callState
	name      string  // its path in the grant
	w         *mount  // its grant, if writable and the file open for writing
	appending bool    // opened with O_APPEND: every write lands at the end
	counted   *bool   // it counts among the instance's open files
	dirents   *uint64 // what the directory entries read through it count (dirents.go)
}

func (f stopFile) Read(b []byte) (int, experimentalsys.Errno) {
	f.st.enter()
	f.st.sawFiles("reads a granted directory")
	return f.File.Read(b)
}

func (f stopFile) Pread(b []byte, off int64) (int, experimentalsys.Errno) {
	f.st.enter()
	f.st.sawFiles("reads a granted directory")
	return f.File.Pread(b, off)
}

func (f stopFile) Stat() (sys.Stat_t, experimentalsys.Errno) {
	f.st.sawFiles("reads a granted directory")
	return f.File.Stat()
}
