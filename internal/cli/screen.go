package cli

import (
	"fmt"
	"io"
)

// A screen is where the plain renderer writes: the assistant's text, status
// lines, and a live line redrawn in place (a spinner and what the agent is
// doing). The renderer calls it under its lock.
type screen interface {
	// text writes the assistant's text as it streams.
	text(s string)
	// line writes a status line, faint (dim on a terminal) or not; the
	// live line, if any, stays below it. Its text is shown printable.
	line(s string, faint bool)
	// live replaces the live line; "" removes it. Its text is shown
	// printable, on one line.
	live(s string)
	// liveWithText says the live line may show while a line of text is
	// open (it is on a row of its own).
	liveWithText() bool
}

// stdScreen writes text to stdout and status to stderr; the live line is
// drawn only when stderr is a terminal. Main has made out and status
// termWriters when they are terminals; the styles and the live line's
// redraw go past them (ctl).
type stdScreen struct {
	out, status io.Writer
	terminal    bool // stderr is a terminal
	outTerminal bool // stdout is a terminal: the model's text is made printable
	noStyle     bool // NO_COLOR: status lines are not faint
	// cols is stderr's width in columns (0: unknown), read at each
	// redraw, so that the live line follows a resize.
	cols  func() int
	drawn bool
}

// newStdScreen is the screen of run, and of chat off a terminal.
func newStdScreen(env Env) *stdScreen {
	return &stdScreen{out: env.Stdout, status: env.Stderr, terminal: env.Terminal, outTerminal: env.StdoutTerminal, noStyle: env.NoColor, cols: env.Width}
}

func (s *stdScreen) text(t string) {
	if s.outTerminal {
		t = printable(t)
	}
	io.WriteString(s.out, t)
}

func (s *stdScreen) line(t string, faint bool) {
	s.clear()
	if faint && s.terminal && !s.noStyle && t != "" {
		io.WriteString(ctl(s.status), "\033[2m")
		io.WriteString(s.status, printable(t))
		io.WriteString(ctl(s.status), "\033[22m\n")
		return
	}
	fmt.Fprintln(s.status, printable(t))
}

func (s *stdScreen) live(t string) {
	if !s.terminal {
		return
	}
	if t == "" {
		s.clear()
		return
	}
	t = flatPrintable(t)
	if s.cols != nil {
		// One row, with the last column free: a line that wraps leaves
		// its first rows behind at every redraw (the redraw clears the
		// cursor's row only), and a cursor in the last column wraps on
		// some terminals.
		if w := s.cols(); w > 0 {
			t = fit(t, w-1)
		}
	}
	io.WriteString(ctl(s.status), "\r\033[2K")
	io.WriteString(s.status, t)
	s.drawn = true
}

func (s *stdScreen) clear() {
	if s.drawn {
		io.WriteString(ctl(s.status), "\r\033[2K")
		s.drawn = false
	}
}

func (s *stdScreen) liveWithText() bool { return false }
