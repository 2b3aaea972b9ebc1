package cli

import (
	"os/signal"
	"syscall"
)

// keepOnBrokenPipe makes a write to a closed stdout fail with EPIPE
// instead of killing the process with SIGPIPE (Go's default for stdout),
// so that `rpc` and `mcp`, whose client is the process reading stdout,
// abort the run, record it and exit with an error when that client dies.
func keepOnBrokenPipe() { signal.Ignore(syscall.SIGPIPE) }
