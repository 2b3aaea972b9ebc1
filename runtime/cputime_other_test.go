//go:build !linux

package runtime

import "time"

var start = time.Now()

// threadCPU falls back to wall time where there is no RUSAGE_THREAD.
func threadCPU() time.Duration { return time.Since(start) }
