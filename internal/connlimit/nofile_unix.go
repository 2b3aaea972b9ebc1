//go:build unix

package connlimit

import "syscall"

// openFileLimit is the process's open-file limit (its soft one, which Go
// raises to the hard one at start), or 0 when unknown.
func openFileLimit() uint64 {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return 0
	}
	return uint64(lim.Cur)
}
