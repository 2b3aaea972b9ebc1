// Command wasmagent runs an LLM agent whose tools and hooks are sandboxed
// WebAssembly plugins. See README.md, or run wasmagent --help.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/wasmagent/wasmagent/internal/cli"
)

func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	interrupt := make(chan struct{}, 2)
	go func() {
		for range sigs {
			select {
			case interrupt <- struct{}{}:
			default:
			}
		}
	}()
	fi, err := os.Stderr.Stat()
	terminal := err == nil && fi.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
	os.Exit(cli.Main(context.Background(), os.Args[1:], cli.Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Interrupt: interrupt, Terminal: terminal,
	}))
}
