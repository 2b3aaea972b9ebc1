package runtime

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling thread has used (Linux
// RUSAGE_THREAD), which a loaded machine skews far less than wall time;
// the caller must hold the thread (LockOSThread).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(1, &ru) != nil { // RUSAGE_THREAD
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
