//go:build race

package cluster

// TestBigToolResultKeepsTheRun's server message bound and tool result
// under the race detector: 128 KiB and 150 KiB, the same property as the
// default 1 MiB and 1.2 MiB (race_off_test.go) at an eighth of the bytes
// to encode, store and stream in instrumented code, where the test was
// the slowest of the package (41 s at load 18) and too CPU-bound to run
// beside the others. make test runs the full size again without -race.
const (
	bigResultBound = 128 << 10
	bigResultLen   = 150 << 10
)
