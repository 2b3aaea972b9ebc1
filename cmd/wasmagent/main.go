// Command wasmagent runs an LLM agent whose tools and hooks are sandboxed
// WebAssembly plugins. See README.md, or run wasmagent --help.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	// The model providers agent.toml may name (host/provider).
	_ "github.com/wasmagent/wasmagent/host/openai"
	"github.com/wasmagent/wasmagent/internal/cli"
)

func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	interrupt := make(chan struct{}, 2)
	terminate := make(chan struct{})
	go func() {
		terminated := false
		for sig := range sigs {
			if sig == syscall.SIGTERM && !terminated {
				terminated = true
				close(terminate)
			}
			select {
			case interrupt <- struct{}{}:
			default:
			}
		}
	}()
	dumb := os.Getenv("TERM") == "dumb"
	env := cli.Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Interrupt:      interrupt,
		Terminate:      terminate,
		Terminal:       !dumb && term.IsTerminal(int(os.Stderr.Fd())),
		StdinTerminal:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTerminal: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTerminal: term.IsTerminal(int(os.Stderr.Fd())),
		Width: func() int {
			w, _, err := term.GetSize(int(os.Stderr.Fd()))
			if err != nil {
				return 0
			}
			return w
		},
		NoColor: os.Getenv("NO_COLOR") != "",
	}
	if env.StdinTerminal && !dumb && term.IsTerminal(int(os.Stdout.Fd())) {
		env.Console = newConsole(int(os.Stdin.Fd()), int(os.Stdout.Fd()))
	}
	os.Exit(cli.Main(context.Background(), os.Args[1:], env))
}

// console is the terminal on stdin and stdout.
type console struct {
	in, out int
	resized chan struct{}
}

func newConsole(in, out int) console {
	c := console{in: in, out: out, resized: make(chan struct{}, 1)}
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	go func() {
		for range winch {
			select {
			case c.resized <- struct{}{}:
			default:
			}
		}
	}()
	return c
}

func (c console) Resized() <-chan struct{} { return c.resized }

func (c console) MakeRaw() (func(), error) {
	old, err := term.MakeRaw(c.in)
	if err != nil {
		return nil, err
	}
	return func() { term.Restore(c.in, old) }, nil
}

func (c console) Size() (int, int, error) { return term.GetSize(c.out) }
