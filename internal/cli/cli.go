// Package cli is the wasmagent command: its commands, flags, output and
// exit codes. cmd/wasmagent only connects it to the process.
//
// Commands live in a table (commands.go); each command is one function in
// a file of its own, so that adding one is a new file and a table line.
//
// Text others wrote (a model, a plugin, a server, a session, agent.toml)
// never reaches a terminal as it is: Main puts a termWriter (termout.go)
// on stdout and stderr when they are terminals, and the command writes
// its own control sequences past it with ctl; JSON streams go through
// jsonOut. A pipe or a file gets the bytes as they are.
package cli

import (
	"context"
	"io"
)

// Exit codes.
const (
	ExitOK      = 0   // the run ended normally
	ExitFailed  = 1   // the model (or a called tool) failed
	ExitUsage   = 2   // bad flags, or a configuration that does not load
	ExitAborted = 130 // interrupted (Ctrl-C)
)

// Env is what the command sees of its process.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Interrupt receives a value for each Ctrl-C (SIGINT) and SIGTERM.
	Interrupt <-chan struct{}
	// Terminate is closed at SIGTERM (nil: never), as Interrupt receives
	// it: the process is asked to end, not only to stop what it waits for.
	// Where one interrupt only ends a run (chat), Terminate ends the
	// command too.
	Terminate <-chan struct{}
	// Terminal says stderr is a terminal (spinner, redrawn lines).
	Terminal bool
	// StdinTerminal says stdin is a terminal: run then never waits for a
	// prompt on it.
	StdinTerminal bool
	// StdoutTerminal says stdout is a terminal: the model's text is then
	// shown with control characters made visible (no escape sequences from
	// a model reach the terminal).
	StdoutTerminal bool
	// StderrTerminal says stderr is a terminal, even one Terminal leaves
	// unstyled (TERM=dumb): what others wrote is shown printable on it.
	StderrTerminal bool
	// Console, when stdin and stdout are one terminal, lets chat edit lines
	// (nil otherwise: chat reads plain lines).
	Console Console
	// Width is the width of the terminal on stderr in columns, 0 when
	// unknown (nil: never known). The live line is kept to one row of it.
	Width func() int
	// NoColor: NO_COLOR is set (no-color.org): status lines and chat's
	// prompt are written without bold or faint.
	NoColor bool
}

// Console is the terminal chat edits lines on.
type Console interface {
	// MakeRaw puts the terminal in raw mode; restore undoes it.
	MakeRaw() (restore func(), err error)
	// Size is the terminal's width and height.
	Size() (width, height int, err error)
	// Resized receives a value when the terminal's size changed (nil:
	// never).
	Resized() <-chan struct{}
}

// Main runs the command line args (without the program name) and returns
// the exit code.
//
// Stdout and stderr, when they are terminals, show no control sequence
// from anyone else's text (termWriter).
func Main(ctx context.Context, args []string, env Env) int {
	env.Stdout = onTerminal(env.Stdout, env.StdoutTerminal)
	env.Stderr = onTerminal(env.Stderr, env.Terminal || env.StderrTerminal)
	return dispatch(ctx, rootGroup, args, env)
}
