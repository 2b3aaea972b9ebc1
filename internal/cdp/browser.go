package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Find returns the path of a Chromium or Chrome on PATH (chromium first,
// as Debian's package names it), or "" when there is none.
func Find() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Options configures Start.
type Options struct {
	// Path is the browser's executable (Find's result).
	Path string
	// UserDataDir is the profile directory, a fresh empty one (t.TempDir()).
	UserDataDir string
	// Width and Height are the window's size in CSS pixels (1280×900 when 0).
	Width, Height int
	// Log, when set, gets the browser's own output (stderr).
	Log io.Writer
}

// Browser is a running headless browser.
type Browser struct {
	cmd  *exec.Cmd
	in   *os.File // the browser reads commands here
	wmu  sync.Mutex
	done chan struct{}

	mu      sync.Mutex
	nextID  int64
	waiting map[int64]chan response
	pages   map[string]*Page // by session id
	err     error            // why the connection ended
}

type response struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// message is anything the browser sends: a response (ID set) or an event.
type message struct {
	ID        int64           `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
	response
}

// Start starts a headless browser. The caller must Close it.
func Start(ctx context.Context, o Options) (*Browser, error) {
	if o.Width == 0 {
		o.Width, o.Height = 1280, 900
	}
	toBrowser, in, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	out, fromBrowser, err := os.Pipe()
	if err != nil {
		toBrowser.Close()
		in.Close()
		return nil, err
	}
	args := []string{
		"--headless=new", "--remote-debugging-pipe",
		"--user-data-dir=" + o.UserDataDir,
		fmt.Sprintf("--window-size=%d,%d", o.Width, o.Height),
		// The sandbox needs kernel features containments (CI, this
		// machine) lack; the browser only ever loads the test's own
		// loopback server.
		"--no-sandbox",
		"--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
		"--force-color-profile=srgb", "--force-prefers-reduced-motion",
		"about:blank",
	}
	cmd := exec.Command(o.Path, args...)
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser} // fd 3, fd 4
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	if err := cmd.Start(); err != nil {
		toBrowser.Close()
		in.Close()
		out.Close()
		fromBrowser.Close()
		return nil, fmt.Errorf("cdp: starting %s: %w", o.Path, err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	b := &Browser{cmd: cmd, in: in, done: make(chan struct{}), waiting: map[int64]chan response{}, pages: map[string]*Page{}}
	go b.read(out)
	// The browser is up when it answers.
	if _, err := b.call(ctx, "", "Browser.getVersion", nil); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

func (b *Browser) read(r *os.File) {
	err := readFrames(r, MaxMessage, b.dispatch)
	r.Close()
	if err == nil {
		err = errors.New("cdp: the browser closed the connection")
	}
	b.mu.Lock()
	b.err = err
	b.mu.Unlock()
	close(b.done)
}

// dispatch hands one message to the call waiting for it or to its page.
func (b *Browser) dispatch(raw []byte) {
	var m message
	if err := json.Unmarshal(raw, &m); err != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if m.ID != 0 {
		if ch, ok := b.waiting[m.ID]; ok {
			delete(b.waiting, m.ID)
			ch <- m.response
		}
		return
	}
	if p := b.pages[m.SessionID]; p != nil && m.Method != "" {
		p.event(m.Method, m.Params)
	}
}

// call sends one command and waits for its answer.
func (b *Browser) call(ctx context.Context, session, method string, params any) (json.RawMessage, error) {
	ch := make(chan response, 1)
	b.mu.Lock()
	if b.err != nil {
		err := b.err
		b.mu.Unlock()
		return nil, err
	}
	b.nextID++
	id := b.nextID
	b.waiting[id] = ch
	b.mu.Unlock()
	req := map[string]any{"id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	if session != "" {
		req["sessionId"] = session
	}
	msg, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	b.wmu.Lock()
	_, err = b.in.Write(append(msg, 0))
	b.wmu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("cdp: %s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, fmt.Errorf("cdp: %s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		return r.Result, nil
	case <-b.done:
		b.mu.Lock()
		defer b.mu.Unlock()
		return nil, fmt.Errorf("cdp: %s: %w", method, b.err)
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.waiting, id)
		b.mu.Unlock()
		return nil, fmt.Errorf("cdp: %s: %w", method, ctx.Err())
	}
}

// Close ends the browser: politely, then by killing it after a second.
func (b *Browser) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	b.call(ctx, "", "Browser.close", nil) //nolint:errcheck // it may be gone already
	b.in.Close()
	select {
	case <-b.done:
	case <-time.After(2 * time.Second):
	}
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(3 * time.Second):
		b.cmd.Process.Kill()
		<-exited
	}
	return nil
}

// Page is one tab.
type Page struct {
	b       *Browser
	session string

	mu  sync.Mutex
	log []string
}

// NewPage opens a blank tab.
func (b *Browser) NewPage(ctx context.Context) (*Page, error) {
	res, err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		return nil, err
	}
	var t struct {
		TargetID string `json:"targetId"`
	}
	if err := json.Unmarshal(res, &t); err != nil {
		return nil, err
	}
	res, err = b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": t.TargetID, "flatten": true})
	if err != nil {
		return nil, err
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(res, &s); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: s.SessionID}
	b.mu.Lock()
	b.pages[s.SessionID] = p
	b.mu.Unlock()
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if _, err := p.Call(ctx, m, nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Call sends a command to the page's target.
func (p *Page) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return p.b.call(ctx, p.session, method, params)
}

// event records what the page says about itself: console messages,
// uncaught exceptions, and the browser's log (where CSP violations go).
func (p *Page) event(method string, params json.RawMessage) {
	var line string
	switch method {
	case "Runtime.consoleAPICalled":
		var e struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		json.Unmarshal(params, &e) //nolint:errcheck // a partial line is still a line
		parts := []string{"console." + e.Type + ":"}
		for _, a := range e.Args {
			if a.Value != nil {
				parts = append(parts, fmt.Sprint(a.Value))
			} else {
				parts = append(parts, a.Description)
			}
		}
		line = strings.Join(parts, " ")
	case "Runtime.exceptionThrown":
		var e struct {
			ExceptionDetails struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		json.Unmarshal(params, &e) //nolint:errcheck
		line = "exception: " + e.ExceptionDetails.Text + " " + e.ExceptionDetails.Exception.Description
	case "Log.entryAdded":
		var e struct {
			Entry struct {
				Source string `json:"source"`
				Level  string `json:"level"`
				Text   string `json:"text"`
			} `json:"entry"`
		}
		json.Unmarshal(params, &e) //nolint:errcheck
		line = "log." + e.Entry.Level + " (" + e.Entry.Source + "): " + e.Entry.Text
	default:
		return
	}
	p.mu.Lock()
	p.log = append(p.log, line)
	p.mu.Unlock()
}

// Log returns what the page said so far (console, exceptions, browser log).
func (p *Page) Log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.log...)
}

// Navigate loads url.
func (p *Page) Navigate(ctx context.Context, url string) error {
	res, err := p.Call(ctx, "Page.navigate", map[string]any{"url": url})
	if err != nil {
		return err
	}
	var r struct {
		ErrorText string `json:"errorText"`
	}
	json.Unmarshal(res, &r) //nolint:errcheck
	if r.ErrorText != "" {
		return fmt.Errorf("cdp: loading %s: %s", url, r.ErrorText)
	}
	return nil
}

// Eval evaluates a JavaScript expression in the page (awaiting a promise)
// and decodes its value, returned by value as JSON, into out (if not nil).
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	res, err := p.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if e := r.ExceptionDetails; e != nil {
		return fmt.Errorf("cdp: evaluating %q: %s %s", expr, e.Text, e.Exception.Description)
	}
	if out == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// WaitFor evaluates expr every 50 ms until it is true; it fails when ctx
// is done first, saying what the page showed at the last try (describe,
// another expression, may be "").
func (p *Page) WaitFor(ctx context.Context, expr, describe string) error {
	for {
		var ok bool
		err := p.Eval(ctx, "!!("+expr+")", &ok)
		if err == nil && ok {
			return nil
		}
		select {
		case <-ctx.Done():
			var seen any
			if describe != "" {
				c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				p.Eval(c, describe, &seen) //nolint:errcheck // only for the message
				cancel()
			}
			return fmt.Errorf("cdp: waiting for %s: %w (last error: %v; the page: %v)", expr, ctx.Err(), err, seen)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Screenshot returns a PNG of the whole page.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	res, err := p.Call(ctx, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true})
	if err != nil {
		return nil, err
	}
	var r struct {
		Data []byte `json:"data"` // base64 in JSON: []byte decodes it
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	return r.Data, nil
}

// Press types one key (as "Enter", "Tab"; vk its Windows virtual-key
// code, which Chromium needs to act on it) into the focused element.
func (p *Page) Press(ctx context.Context, key string, vk int) error {
	text := ""
	if key == "Enter" {
		text = "\r"
	}
	for _, typ := range []string{"keyDown", "keyUp"} {
		params := map[string]any{"type": typ, "key": key, "code": key, "windowsVirtualKeyCode": vk}
		if typ == "keyDown" && text != "" {
			params["text"] = text
		}
		if _, err := p.Call(ctx, "Input.dispatchKeyEvent", params); err != nil {
			return err
		}
	}
	return nil
}
