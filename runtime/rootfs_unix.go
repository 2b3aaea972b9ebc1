//go:build unix

package runtime

import "syscall"

const (
	oNoFollow  = syscall.O_NOFOLLOW
	oDirectory = syscall.O_DIRECTORY
)
