package cli

import (
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

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
// (golang.org/x/term) keeps the prompt and the line being typed on the
// last row, below everything written, so typed input never mixes with the
// output. While the agent works, the prompt shows the live line.
//
// A line of text still streaming (open) is kept on its own row above the
// prompt: each delta rewrites that row, and a line typed and entered while
// it streams is wiped from the screen so the text goes on where it was.
type consoleScreen struct {
	t       *term.Terminal
	width   int
	noStyle bool // NO_COLOR: no bold or faint

	mu     sync.Mutex
	open   string // the streamed line not yet ended, on the row(s) above the prompt
	busy   bool
	asking bool // a hook's question waits for the line typed
	status string
	shown  string // the prompt the editor has

	// loading: chat waits for a load (/reload), and a Ctrl-C typed goes
	// to ctrlC, which the load heeds, not to the line reader's inputs,
	// which nobody reads until it ends.
	loading atomic.Bool
	ctrlC   chan struct{}
}

// The prompt's styles: bold when it waits for a line, faint while the
// agent works.
const (
	styleBold  = "1"
	styleFaint = "2"
)

func newConsoleScreen(in io.Reader, out io.Writer, width, height int, noStyle bool) *consoleScreen {
	if width <= 0 || height <= 0 {
		width, height = 80, 24
	}
	c := &consoleScreen{width: width, noStyle: noStyle, ctrlC: make(chan struct{}, 1)}
	c.shown = c.prompt()
	c.t = term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{&ctrlCReader{r: in}, out}, c.shown)
	c.t.SetSize(width, height)
	return c
}

// close turns bracketed paste off and wipes the prompt row, so that the
// shell's prompt starts on a clean row.
func (c *consoleScreen) close(out io.Writer) {
	c.t.SetBracketedPasteMode(false)
	io.WriteString(out, "\r\033[K")
}

// resize takes the terminal's new size.
func (c *consoleScreen) resize(width, height int) {
	if width <= 0 || height <= 0 {
		return
	}
	c.mu.Lock()
	c.width = width
	p := c.prompt()
	c.shown = p
	c.mu.Unlock()
	c.t.SetPrompt(p)
	c.t.SetSize(width, height)
}

// up moves the cursor from the prompt row to the start of the open line.
func (c *consoleScreen) up() string {
	if c.open == "" {
		return ""
	}
	rows := (utf8.RuneCountInString(c.open)-1)/c.width + 1
	return "\033[" + itoa(rows) + "A\r"
}

func (c *consoleScreen) text(s string) {
	s = printable(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	buf := c.up() + c.open + s
	full := c.open + s
	if i := strings.LastIndexByte(full, '\n'); i >= 0 {
		c.open = full[i+1:]
	} else {
		c.open = full
	}
	if c.open != "" {
		buf += "\n" // the prompt goes below the open line
	}
	c.t.Write([]byte(buf))
}

func (c *consoleScreen) line(s string, faint bool) {
	s = printable(s)
	if faint && s != "" && !c.noStyle {
		s = "\033[2m" + s + "\033[22m"
	}
	c.t.Write([]byte(s + "\n"))
}

func (c *consoleScreen) liveWithText() bool { return true }

// entered is called when the editor returned line: if a line of text is
// open, the typed rows (now between it and the prompt) are wiped.
func (c *consoleScreen) entered(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open == "" {
		return
	}
	typed := (visualLen(c.prompt())+utf8.RuneCountInString(line)-1)/c.width + 1
	open := (utf8.RuneCountInString(c.open)-1)/c.width + 1
	// The cursor is at the start of the row below the typed rows: go up
	// to the open line, rewrite it, clear the typed rows, and come back
	// to the first of them for the prompt.
	buf := "\033[" + itoa(typed+open) + "A\r" + c.open + "\n\033[2K" + strings.Repeat("\n\033[2K", typed-1)
	if typed > 1 {
		buf += "\033[" + itoa(typed-1) + "A"
	}
	c.t.Write([]byte(buf + "\r"))
}

func (c *consoleScreen) live(s string) {
	s = flatPrintable(s)
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

// repaint redraws the prompt row when the prompt changed, and only then:
// an idle prompt is written once, not at every tick of the spinner (over
// SSH, a redraw ten times a second is a stream that never stops, and a
// terminal's selection or scrollback is disturbed by each).
func (c *consoleScreen) repaint() {
	c.mu.Lock()
	p := c.prompt()
	same := p == c.shown
	c.shown = p
	c.mu.Unlock()
	if same {
		return
	}
	c.t.SetPrompt(p)
	c.t.Write(nil)
}

// setAsking shows, while a hook's question is pending, that the line
// typed answers it.
func (c *consoleScreen) setAsking(asking bool) {
	c.mu.Lock()
	c.asking = asking
	c.mu.Unlock()
	c.repaint()
}

// prompt is the question's marker while one is pending, the idle marker,
// or while busy the status, made to fit in one row.
func (c *consoleScreen) prompt() string {
	switch {
	case c.asking:
		return c.styled("allow? [y/n/a] ›", styleBold)
	case !c.busy:
		return c.styled("›", styleBold)
	case c.status != "":
		return c.styled(fitBy(c.status, c.width-4, span)+" ›", styleFaint)
	}
	return c.styled("›", styleFaint)
}

// styled is the prompt s and a space, in style, within the terminal's
// width with a column left for the cursor: the line editor writes a prompt
// wider than the row in pieces of as many runes as the row has columns,
// escape sequences counted, so a wider one is cut inside its escape codes
// and the rest shows as text ("m ›" on the next row). Where the styled
// prompt does not fit, it goes unstyled (as with NO_COLOR).
func (c *consoleScreen) styled(s, style string) string {
	if measure(s, span) > c.width-2 {
		s = fitBy(s, c.width-2, span)
	}
	if p := "\033[" + style + "m" + s + "\033[22m "; !c.noStyle && utf8.RuneCountInString(p) <= c.width {
		return p
	}
	if r := []rune(s + " "); len(r) > c.width {
		return string(r[:max(c.width-1, 0)])
	}
	return s + " "
}

// visualLen counts the runes of s outside ANSI escape sequences.
func visualLen(s string) int {
	n, esc := 0, false
	for _, r := range s {
		switch {
		case esc:
			esc = !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		case r == '\033':
			esc = true
		default:
			n++
		}
	}
	return n
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// whileLoading runs load with Ctrl-C typed on the terminal sent to the
// channel it is given, for the load to heed.
func (c *consoleScreen) whileLoading(load func(ctrlC <-chan struct{})) {
	select {
	case <-c.ctrlC: // (one typed before)
	default:
	}
	c.loading.Store(true)
	defer c.loading.Store(false)
	load(c.ctrlC)
}
