package cli

import (
	"io"
	"sync"
	"unicode/utf8"
)

// termWriter is the one door between text from outside (a model, a
// plugin, a server, a session file, agent.toml) and a terminal: Main puts
// it on stdout and stderr when they are terminals, so that no print,
// however it was written, sends a terminal an escape sequence, a C1
// control, a bidi override or a lone CR. What it writes shows every such
// character visibly (printable). A stream that is not a terminal is left
// byte-exact: it is data for a program (a pipe to jq, a file).
//
// The command's own control sequences (the live line, its styles, chat's
// line editor) go through ctl, never through the termWriter.
//
// In json mode (jsonOut) it writes the JSON it is given with the runes a
// terminal could act on that JSON does not escape itself — C1 controls,
// bidi controls — written as \u escapes: the same JSON values, shown
// safely.
type termWriter struct {
	mu      sync.Mutex
	w       io.Writer
	json    bool
	pending []byte // an unfinished UTF-8 sequence or a CR, held for the next write
}

// onTerminal wraps w in a termWriter when terminal is true (once).
func onTerminal(w io.Writer, terminal bool) io.Writer {
	if _, ok := w.(*termWriter); ok || !terminal || w == nil {
		return w
	}
	return &termWriter{w: w}
}

// ctl is where the command writes its own control sequences: past the
// termWriter, after what it holds.
func ctl(w io.Writer) io.Writer {
	if t, ok := w.(*termWriter); ok {
		return ctlWriter{t}
	}
	return w
}

// jsonOut is where a JSON stream goes: w itself unless w is a terminal,
// where the JSON's C1 and bidi runes are escaped.
func jsonOut(w io.Writer) io.Writer {
	if t, ok := w.(*termWriter); ok {
		return &termWriter{w: ctlWriter{t}, json: true}
	}
	return w
}

type ctlWriter struct{ t *termWriter }

func (c ctlWriter) Write(p []byte) (int, error) {
	c.t.mu.Lock()
	defer c.t.mu.Unlock()
	if err := c.t.flushLocked(); err != nil {
		return 0, err
	}
	return c.t.w.Write(p)
}

func (t *termWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	buf := p
	if len(t.pending) > 0 {
		buf = append(t.pending, p...)
	}
	t.pending = nil
	// Hold back an unfinished rune, or a CR that a LF may follow.
	cut := len(buf)
	if cut > 0 && buf[cut-1] == '\r' {
		cut--
	} else if i := lastRuneStart(buf); i >= 0 && !utf8.FullRune(buf[i:]) {
		cut = i
	}
	t.pending = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(t.w, t.clean(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flushLocked writes what the termWriter holds, as it is: a CR alone, or
// a rune that will not be finished.
func (t *termWriter) flushLocked() error {
	if len(t.pending) == 0 {
		return nil
	}
	s := t.clean(string(t.pending))
	t.pending = nil
	_, err := io.WriteString(t.w, s)
	return err
}

func (t *termWriter) clean(s string) string {
	if t.json {
		return jsonSafe(s)
	}
	return printable(s)
}

// lastRuneStart is the index of the last byte of b that starts a rune
// (or is ASCII), -1 if b is empty; at most utf8.UTFMax back.
func lastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return -1
}
