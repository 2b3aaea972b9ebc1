//go:build !race

package cluster

// TestBigToolResultKeepsTheRun's server message bound (0: the server's
// default, 1 MiB) and tool result (see race_on_test.go).
const (
	bigResultBound = 0
	bigResultLen   = 1200 << 10
)
