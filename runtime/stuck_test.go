package runtime_test

import (
	"time"

	"github.com/wasmagent/wasmagent/runtime"
)

// stuckAfter is how long a call with the given timeout may take before a
// test calls it stuck. The runtime promises that a call ends by its
// timeout once its instance runs, and that an instantiation inside the
// call (no instance pooled) ends within max(timeout, MinInitTimeout);
// the rest is a generous allowance for a shared machine under -race,
// where a goroutine can wait seconds for a CPU. Tests assert that calls
// end, with this bound; how soon they end is measured by benchmarks
// (BenchmarkDeadlineOvershoot), never asserted.
func stuckAfter(timeout time.Duration) time.Duration {
	return max(timeout, runtime.MinInitTimeout) + timeout + 30*time.Second
}
