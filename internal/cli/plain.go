package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/internal/words"
)

// plainRenderer streams the assistant's text and shows the rest compactly
// on a screen: tool calls, their progress and results as status lines, a
// summary line at the end, and on a terminal a live line redrawn in place
// that says what the agent is waiting for — the model's first token, its
// reasoning (summarised: time, size, last words), a retry, a tool.
type plainRenderer struct {
	mu      sync.Mutex
	sc      screen
	animate bool                // redraw the live line every tick
	maxLive int                 // the live line's width in runes
	running map[string]*running // by tool call id
	midLine bool                // the text has a line not yet ended
	frame   int

	// explain, if set, says what to check after a model error (modelHint).
	explain func(msg string, got bool) string

	phase      string // what the live line says when no tool runs; "" for nothing
	phaseSince time.Time
	thought    []rune // the reasoning's last words
	thoughtLen int    // its length in runes
	thinkSince time.Time

	notes   []note // said while a line of text was open; printed when it ends
	sum     summary
	stop    chan struct{}
	stopped sync.WaitGroup
}

type note struct {
	text  string
	faint bool
}

type running struct {
	name    string
	started time.Time
	last    string
}

// The live line's phases.
const (
	phaseWaiting  = "waiting for the model"
	phaseThinking = "thinking"
)

func newPlainRenderer(sc screen, animate bool) *plainRenderer {
	r := &plainRenderer{sc: sc, animate: animate, maxLive: 160, running: map[string]*running{}, stop: make(chan struct{})}
	if animate {
		r.stopped.Add(1)
		go r.spin()
	}
	return r
}

// close stops the spinner and removes the live line.
func (r *plainRenderer) close() {
	close(r.stop)
	r.stopped.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sc.live("")
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

// drawLocked redraws the live line: the tools still running, else the
// phase. Nothing is drawn while a line of text is open.
func (r *plainRenderer) drawLocked() {
	if !r.animate {
		return
	}
	if (r.midLine && !r.sc.liveWithText()) || (len(r.running) == 0 && r.phase == "") {
		r.sc.live("")
		return
	}
	r.sc.live(clip(spinner[r.frame%len(spinner)]+" "+r.liveText(), r.maxLive))
}

func (r *plainRenderer) liveText() string {
	if len(r.running) == 0 {
		s := fmt.Sprintf("%s %s", r.phase, seconds(time.Since(r.phaseSince)))
		if r.phase == phaseThinking && r.thoughtLen > 0 {
			s += fmt.Sprintf(" · %s %s", words.Count(r.thoughtLen, "char"), lastWords(string(r.thought), 60))
		}
		return s
	}
	ids := make([]string, 0, len(r.running))
	for id := range r.running {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return r.running[ids[i]].started.Before(r.running[ids[j]].started) })
	var parts []string
	for _, id := range ids {
		t := r.running[id]
		p := t.name + " " + seconds(time.Since(t.started))
		if t.last != "" {
			p += " " + t.last
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " · ")
}

// lineLocked prints one status line, ending an open line of text first.
func (r *plainRenderer) lineLocked(format string, args ...any) {
	r.printLocked(note{text: fmt.Sprintf(format, args...)})
}

// faintLocked prints one status line of the command's own, faint.
func (r *plainRenderer) faintLocked(s string) { r.printLocked(note{text: s, faint: true}) }

func (r *plainRenderer) printLocked(n note) {
	r.endLineLocked()
	r.sc.line(n.text, n.faint)
	r.flushNotesLocked()
	r.drawLocked()
}

// endLineLocked ends an open line of text.
func (r *plainRenderer) endLineLocked() {
	if r.midLine {
		r.sc.text("\n")
		r.midLine = false
	}
}

func (r *plainRenderer) setPhaseLocked(p string) {
	r.phase, r.phaseSince = p, time.Now()
	r.drawLocked()
}

// note prints a line of the command's own (dim on a terminal); while a
// line of the answer is open, once it ends, so as not to cut it.
func (r *plainRenderer) note(s string) { r.addNote(note{text: s, faint: true}) }

// noteStyled prints a note not faint (a question to answer stands out
// from the dim notes).
func (r *plainRenderer) noteStyled(s string) { r.addNote(note{text: s}) }

func (r *plainRenderer) addNote(n note) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.midLine {
		r.notes = append(r.notes, n)
		return
	}
	r.printLocked(n)
}

func (r *plainRenderer) flushNotesLocked() {
	notes := r.notes
	r.notes = nil
	for _, n := range notes {
		r.printLocked(n)
	}
}

// retry reports a model request tried again, as a line.
func (r *plainRenderer) retry(what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lineLocked("%s", what)
	r.setPhaseLocked(phaseWaiting)
}

func (r *plainRenderer) event(_ context.Context, e host.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sum.event(e)
	switch e := e.(type) {
	case host.AgentStartEvent, host.TurnStartEvent:
		r.setPhaseLocked(phaseWaiting)
	case host.MessageUpdateEvent:
		r.streamLocked(e.AssistantMessageEvent)
	case host.MessageEndEvent:
		if _, ok := e.Message.(*host.AssistantMessage); ok {
			r.endLineLocked()
			r.flushNotesLocked()
			r.setPhaseLocked("")
		}
	case host.ToolExecutionStartEvent:
		r.running[e.ToolCallID] = &running{name: flatPrintable(e.ToolName), started: time.Now()}
		r.lineLocked("→ %s %s", flatPrintable(e.ToolName), clip(printable(compactJSON(e.Args)), 100))
	case host.ToolExecutionUpdateEvent:
		text := clip(printable(firstLine(partialText(e.PartialResult))), 60)
		if t := r.running[e.ToolCallID]; t != nil {
			t.last = text
		}
		if r.animate {
			r.drawLocked()
		} else {
			r.lineLocked("  … %s %s", flatPrintable(e.ToolName), text)
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
		r.lineLocked("%s %s%s %s", mark, flatPrintable(e.ToolName), took, clip(printable(firstLine(e.Result.Content.TextOf())), 100))
	case host.AgentEndEvent:
		for _, m := range e.Messages {
			if a, ok := m.(*host.AssistantMessage); ok && a.StopReason == host.StopReasonError {
				r.lineLocked("error: %s", printable(a.ErrorMessage))
				if r.explain != nil {
					if hint := r.explain(a.ErrorMessage, len(a.Content) > 0); hint != "" {
						r.lineLocked("%s", printable(hint))
					}
				}
			}
		}
		r.phase = ""
		r.faintLocked(r.sum.String())
	}
	return nil
}

// streamLocked follows the model's stream: text is printed, reasoning and
// tool calls being written are summarised on the live line.
func (r *plainRenderer) streamLocked(a host.AssistantMessageEvent) {
	switch a.Type {
	case host.StreamTextStart:
		r.endThinkingLocked()
		r.setPhaseLocked("answering")
	case host.StreamTextDelta:
		if a.Delta == "" {
			return
		}
		if !r.sc.liveWithText() {
			r.sc.live("")
		}
		r.sc.text(a.Delta)
		r.midLine = !strings.HasSuffix(a.Delta, "\n")
		if !r.midLine {
			r.flushNotesLocked()
		}
	case host.StreamThinkingStart:
		r.thought, r.thoughtLen, r.thinkSince = nil, 0, time.Now()
		r.setPhaseLocked(phaseThinking)
	case host.StreamThinkingDelta:
		if r.phase != phaseThinking {
			// reasoning again, in the block it began (as pi-ai's
			// openai-completions streams it)
			r.thought, r.thoughtLen, r.thinkSince = nil, 0, time.Now()
			r.setPhaseLocked(phaseThinking)
		}
		d := []rune(printable(a.Delta))
		r.thoughtLen += len(d)
		r.thought = append(r.thought, d...)
		if n := len(r.thought); n > 200 {
			r.thought = append(r.thought[:0], r.thought[n-100:]...)
		}
		r.drawLocked()
	case host.StreamThinkingEnd:
		r.endThinkingLocked()
	case host.StreamToolCallStart:
		r.endThinkingLocked()
		r.setPhaseLocked("writing a tool call")
	case host.StreamToolCallEnd:
		r.setPhaseLocked(phaseWaiting)
	}
}

// endThinkingLocked summarises the reasoning when the model stops
// reasoning: at its thinking_end, or at the first text or tool call after
// it (a model adapter that ends its blocks only with the stream, as pi-ai
// does, sends thinking_end after the answer).
func (r *plainRenderer) endThinkingLocked() {
	if r.phase != phaseThinking {
		return
	}
	r.faintLocked(fmt.Sprintf("(thought for %s, %s)", seconds(time.Since(r.thinkSince)), words.Count(r.thoughtLen, "char")))
	r.setPhaseLocked(phaseWaiting)
}

// seconds is d as "1.2s".
func seconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }
