package cli

import (
	"io"
	"sync"

	"golang.org/x/term"
)

// ctrlCKey stands for Ctrl-C in the line editor: term.Terminal reads a
// Ctrl-C as the end of input, the same as Ctrl-D, so ctrlCReader turns the
// byte into this private-use rune and the editor's key callback sees it.
const ctrlCKey = '\ue003'

// ctrlCReader replaces each Ctrl-C byte (0x03) of r by ctrlCKey.
type ctrlCReader struct {
	r       io.Reader
	pending []byte
}

func (c *ctrlCReader) Read(p []byte) (int, error) {
	if len(c.pending) == 0 {
		buf := make([]byte, max(len(p)/3, 1))
		n, err := c.r.Read(buf)
		for _, b := range buf[:n] {
			if b == 3 {
				c.pending = append(c.pending, string(ctrlCKey)...)
			} else {
				c.pending = append(c.pending, b)
			}
		}
		if len(c.pending) == 0 {
			return 0, err
		}
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// consoleScreen is chat's screen on a terminal in raw mode: a line editor
// (golang.org/x/term) that redraws the prompt and the line being typed
// below whatever is written, so typed input never mixes with the output.
// While the agent works, the live line is the prompt itself.
type consoleScreen struct {
	t *term.Terminal

	mu     sync.Mutex
	busy   bool
	status string
}

const promptIdle = "\033[1m›\033[22m "

func newConsoleScreen(in io.Reader, out io.Writer, width, height int) *consoleScreen {
	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{&ctrlCReader{r: in}, out}, promptIdle)
	if width > 0 && height > 0 {
		t.SetSize(width, height)
	}
	return &consoleScreen{t: t}
}

func (c *consoleScreen) text(s string) { c.t.Write([]byte(s)) }
func (c *consoleScreen) line(s string) { c.t.Write([]byte(s + "\n")) }
func (c *consoleScreen) styled() bool  { return true }

func (c *consoleScreen) live(s string) {
	c.mu.Lock()
	c.status = s
	c.mu.Unlock()
	c.repaint()
}

// setBusy switches the prompt between the idle marker and the status.
func (c *consoleScreen) setBusy(busy bool) {
	c.mu.Lock()
	c.busy = busy
	c.mu.Unlock()
	c.repaint()
}

func (c *consoleScreen) repaint() {
	c.mu.Lock()
	p := promptIdle
	if c.busy {
		// A line typed now steers the run; while text streams the prompt
		// is empty so that the text reads on.
		p = ""
		if c.status != "" {
			p = "\033[2m" + c.status + "\033[22m › "
		}
	}
	c.mu.Unlock()
	c.t.SetPrompt(p)
	c.t.Write(nil)
}
