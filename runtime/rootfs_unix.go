//go:build unix

package runtime

import "syscall"

// errNoDevice is what opening a special file without blocking may fail
// with (a pipe opened for writing that no one reads, a socket): it is
// refused as any special file is (onlyFilesAndDirs).
var errNoDevice error = syscall.ENXIO

const (
	oNoFollow  = syscall.O_NOFOLLOW
	oDirectory = syscall.O_DIRECTORY
	oNonBlock  = syscall.O_NONBLOCK
)
