package runtime

import (
	"io/fs"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// stopFS is a granted directory as one call sees it: opening, reading and
// writing a file first check that the call is still on (callState.enter),
// so that a guest looping over large reads or writes stops at its
// deadline. Each other operation is a single bounded system call.
type stopFS struct {
	experimentalsys.FS
	st *callState
}

func (s stopFS) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	s.st.enter()
	if s.st.imaging {
		s.st.cannotReplay("opens " + p + " in a granted directory")
	}
	f, errno := s.FS.OpenFile(p, flag, perm)
	if errno != 0 {
		return nil, errno
	}
	return stopFile{f, s.st}, 0
}

type stopFile struct {
	experimentalsys.File
	st *callState
}

func (f stopFile) Read(b []byte) (int, experimentalsys.Errno) {
	f.st.enter()
	return f.File.Read(b)
}

func (f stopFile) Pread(b []byte, off int64) (int, experimentalsys.Errno) {
	f.st.enter()
	return f.File.Pread(b, off)
}

func (f stopFile) Write(b []byte) (int, experimentalsys.Errno) {
	f.st.enter()
	return f.File.Write(b)
}

func (f stopFile) Pwrite(b []byte, off int64) (int, experimentalsys.Errno) {
	f.st.enter()
	return f.File.Pwrite(b, off)
}

func (f stopFile) Readdir(n int) ([]experimentalsys.Dirent, experimentalsys.Errno) {
	f.st.enter()
	return f.File.Readdir(n)
}
