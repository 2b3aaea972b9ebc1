// Package hosttest has helpers for testing code built on package host: an
// event recorder, golden files of JSON-lines event streams, and small tools.
package hosttest

import (
	"bytes"
	"context"
	"regexp"
	"sync"
	"time"

	"github.com/wasmagent/wasmagent/host"
)

// Recorder keeps every event it is given. It is safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	cond   *sync.Cond
	events []host.Event
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	r := &Recorder{}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// Sink records e; use it as a host.Sink or a host.Listener.
func (r *Recorder) Sink(_ context.Context, e host.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	r.cond.Broadcast()
	return nil
}

// Events returns the events so far.
func (r *Recorder) Events() []host.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]host.Event(nil), r.events...)
}

// Types returns the event types so far, with the tool-call id or the
// message role appended where there is one ("tool_execution_end c2",
// "message_start user").
func (r *Recorder) Types() []string {
	var out []string
	for _, e := range r.Events() {
		out = append(out, Describe(e))
	}
	return out
}

// Describe names an event the way Types does.
func Describe(e host.Event) string {
	switch e := e.(type) {
	case host.ToolExecutionStartEvent:
		return e.EventType() + " " + e.ToolCallID
	case host.ToolExecutionUpdateEvent:
		return e.EventType() + " " + e.ToolCallID
	case host.ToolExecutionEndEvent:
		return e.EventType() + " " + e.ToolCallID
	case host.MessageStartEvent:
		return e.EventType() + " " + messageName(e.Message)
	case host.MessageEndEvent:
		return e.EventType() + " " + messageName(e.Message)
	case host.MessageUpdateEvent:
		return e.EventType() + " " + e.AssistantMessageEvent.Type
	}
	return e.EventType()
}

func messageName(m host.Message) string {
	if tr, ok := m.(*host.ToolResultMessage); ok {
		return "toolResult " + tr.ToolCallID
	}
	return m.MessageRole()
}

// WaitFor blocks until cond holds for the events so far, or the timeout
// passes; it reports whether cond held.
func (r *Recorder) WaitFor(timeout time.Duration, cond func([]host.Event) bool) bool {
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		r.mu.Lock()
		r.cond.Broadcast()
		r.mu.Unlock()
	})
	defer timer.Stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	for !cond(r.events) {
		if time.Now().After(deadline) {
			return false
		}
		r.cond.Wait()
	}
	return true
}

// Ended reports whether events hold the tool_execution_end of id.
func Ended(id string) func([]host.Event) bool {
	return func(events []host.Event) bool {
		for _, e := range events {
			if end, ok := e.(host.ToolExecutionEndEvent); ok && end.ToolCallID == id {
				return true
			}
		}
		return false
	}
}

// JSONLines encodes the events one per line, with every timestamp set to 0
// so that runs compare equal.
func (r *Recorder) JSONLines() ([]byte, error) {
	var b bytes.Buffer
	for _, e := range r.Events() {
		line, err := host.MarshalEvent(e)
		if err != nil {
			return nil, err
		}
		b.Write(NormalizeTimestamps(line))
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

var timestampRE = regexp.MustCompile(`"timestamp":\d+`)

// NormalizeTimestamps replaces every "timestamp" value in JSON text by 0.
func NormalizeTimestamps(b []byte) []byte {
	return timestampRE.ReplaceAll(b, []byte(`"timestamp":0`))
}
