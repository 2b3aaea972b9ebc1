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
	// line writes a status line; the live line, if any, stays below it.
	line(s string)
	// live replaces the live line; "" removes it.
	live(s string)
	// styled says whether ANSI styles (dim) may be used.
	styled() bool
	// liveWithText says the live line may show while a line of text is
	// open (it is on a row of its own).
	liveWithText() bool
}

// stdScreen writes text to stdout and status to stderr; the live line is
// drawn only when stderr is a terminal.
type stdScreen struct {
	out, status io.Writer
	terminal    bool // stderr is a terminal
	outTerminal bool // stdout is a terminal: the model's text is made printable
	drawn       bool
}

func (s *stdScreen) text(t string) {
	if s.outTerminal {
		t = printable(t)
	}
	io.WriteString(s.out, t)
}

func (s *stdScreen) line(t string) {
	s.clear()
	fmt.Fprintln(s.status, t)
}

func (s *stdScreen) live(t string) {
	if !s.terminal {
		return
	}
	if t == "" {
		s.clear()
		return
	}
	fmt.Fprintf(s.status, "\r\033[2K%s", t)
	s.drawn = true
}

func (s *stdScreen) clear() {
	if s.drawn {
		io.WriteString(s.status, "\r\033[2K")
		s.drawn = false
	}
}

func (s *stdScreen) styled() bool       { return s.terminal }
func (s *stdScreen) liveWithText() bool { return false }

// dim styles s faint on a terminal.
func dim(sc screen, s string) string {
	if !sc.styled() || s == "" {
		return s
	}
	return "\033[2m" + s + "\033[22m"
}
