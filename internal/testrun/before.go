package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// runBefore runs -before's command with sh in the module's directory,
// its output on testrun's, and says when it ended and how. It runs
// while go builds the test binaries; no test starts before it has
// succeeded (pool.before).
func runBefore(dir, command string, stdout, stderr io.Writer) error {
	start := time.Now()
	fmt.Fprintf(stdout, "testrun: running -before %q while go builds the test binaries; the tests start when it has succeeded\n", command)
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("-before %q: %w", command, err)
	}
	fmt.Fprintf(stdout, "testrun: -before done in %.1fs\n", time.Since(start).Seconds())
	return nil
}

// interrupt asks a process to stop as Ctrl-C would, or, where there is
// no such signal, kills it.
func interrupt(p *os.Process) error {
	if err := p.Signal(os.Interrupt); err != nil {
		return p.Kill()
	}
	return nil
}
