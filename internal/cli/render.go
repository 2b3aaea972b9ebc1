package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/eventwire"
)

// jsonRenderer prints every event as one JSON object a line (pi's event
// names and fields), within the byte budget of [events] (host/eventwire).
type jsonRenderer struct{ enc *eventwire.Encoder }

func (r jsonRenderer) event(ctx context.Context, e host.Event) error { return r.enc.Event(ctx, e) }

// plainRenderer streams the assistant's text to out and shows tool calls,
// their progress and their results compactly on status: on a terminal, a
// spinner line redrawn in place while tools run; otherwise, plain lines.
type plainRenderer struct {
	mu       sync.Mutex
	out      io.Writer
	status   io.Writer
	terminal bool
	running  map[string]*running // by tool call id
	midLine  bool                // out has text not ended by a newline
	drawn    bool                // a status line is on screen
	frame    int
	stop     chan struct{}
	stopped  sync.WaitGroup
}

type running struct {
	name    string
	started time.Time
	last    string
}

func newPlainRenderer(out, status io.Writer, terminal bool) *plainRenderer {
	r := &plainRenderer{out: out, status: status, terminal: terminal, running: map[string]*running{}, stop: make(chan struct{})}
	if terminal {
		r.stopped.Add(1)
		go r.spin()
	}
	return r
}

// close stops the spinner.
func (r *plainRenderer) close() {
	close(r.stop)
	r.stopped.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLocked()
}

func (r *plainRenderer) spin() {
	defer r.stopped.Done()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			r.mu.Lock()
			r.frame++
			r.drawLocked()
			r.mu.Unlock()
		}
	}
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// drawLocked redraws the status line: the tools still running.
func (r *plainRenderer) drawLocked() {
	if !r.terminal || len(r.running) == 0 {
		return
	}
	ids := make([]string, 0, len(r.running))
	for id := range r.running {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return r.running[ids[i]].started.Before(r.running[ids[j]].started) })
	var parts []string
	for _, id := range ids {
		t := r.running[id]
		p := fmt.Sprintf("%s %.1fs", t.name, time.Since(t.started).Seconds())
		if t.last != "" {
			p += " " + t.last
		}
		parts = append(parts, p)
	}
	line := spinner[r.frame%len(spinner)] + " " + strings.Join(parts, " · ")
	fmt.Fprintf(r.status, "\r\033[2K%s", clip(line, 160))
	r.drawn = true
}

func (r *plainRenderer) clearLocked() {
	if r.drawn {
		fmt.Fprint(r.status, "\r\033[2K")
		r.drawn = false
	}
}

// statusLocked prints one line on status, above the spinner line.
func (r *plainRenderer) statusLocked(format string, args ...any) {
	if r.midLine {
		fmt.Fprintln(r.out)
		r.midLine = false
	}
	r.clearLocked()
	fmt.Fprintf(r.status, format+"\n", args...)
	r.drawLocked()
}

func (r *plainRenderer) event(_ context.Context, e host.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e := e.(type) {
	case host.MessageUpdateEvent:
		if e.AssistantMessageEvent.Type == host.StreamTextDelta {
			r.clearLocked()
			fmt.Fprint(r.out, e.AssistantMessageEvent.Delta)
			r.midLine = !strings.HasSuffix(e.AssistantMessageEvent.Delta, "\n")
		}
	case host.MessageEndEvent:
		if _, ok := e.Message.(*host.AssistantMessage); ok && r.midLine {
			fmt.Fprintln(r.out)
			r.midLine = false
		}
	case host.ToolExecutionStartEvent:
		r.running[e.ToolCallID] = &running{name: e.ToolName, started: time.Now()}
		r.statusLocked("→ %s %s", e.ToolName, clip(compactJSON(e.Args), 100))
	case host.ToolExecutionUpdateEvent:
		text := clip(firstLine(partialText(e.PartialResult)), 60)
		if t := r.running[e.ToolCallID]; t != nil {
			t.last = text
		}
		if r.terminal {
			r.drawLocked()
		} else {
			r.statusLocked("  … %s %s", e.ToolName, text)
		}
	case host.ToolExecutionEndEvent:
		took := ""
		if t := r.running[e.ToolCallID]; t != nil {
			took = fmt.Sprintf(" (%s)", time.Since(t.started).Round(time.Millisecond))
			delete(r.running, e.ToolCallID)
		}
		mark := "✓"
		if e.IsError {
			mark = "✗"
		}
		r.statusLocked("%s %s%s %s", mark, e.ToolName, took, clip(firstLine(e.Result.Content.TextOf()), 100))
	case host.AgentEndEvent:
		for _, m := range e.Messages {
			if a, ok := m.(*host.AssistantMessage); ok && a.StopReason == host.StopReasonError {
				r.statusLocked("error: %s", a.ErrorMessage)
			}
		}
	}
	return nil
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// partialText is the text of a partial result, whatever its Go type.
func partialText(p any) string {
	b, err := json.Marshal(p)
	if err != nil {
		return ""
	}
	var r struct {
		Content host.Contents `json:"content"`
	}
	if json.Unmarshal(b, &r) == nil && len(r.Content) > 0 {
		return r.Content.TextOf()
	}
	return string(b)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// clip cuts s to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
