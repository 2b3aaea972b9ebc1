package cli

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
)

// Idle, chat writes nothing to its terminal: the spinner's ticks redrew
// the prompt row ten times a second (a stream that never stops over SSH).
// At the prompt, after a run, and after a hook's question, ticks of the
// spinner's clock (driven here, not timed) write no byte; while the agent
// works, each tick redraws the live line.
func TestConsoleIdleWritesNothing(t *testing.T) {
	in, keys := io.Pipe()
	defer keys.Close()
	var out syncBuffer
	c := newConsoleScreen(in, &out, 80, 24, false)
	// The renderer without its ticker: tick is one of its ticks.
	r := &plainRenderer{sc: c, animate: true, maxLive: 60, running: map[string]*running{}, stop: make(chan struct{})}
	tick := func() {
		r.mu.Lock()
		r.frame++
		r.drawLocked()
		r.mu.Unlock()
	}
	lines := make(chan string, 1)
	go func() {
		l, _ := c.t.ReadLine()
		lines <- l
	}()
	waitOut(t, &out, func(s string) bool { return strings.Contains(s, "›") }) // the editor drew its prompt
	idle := func(when string) {
		t.Helper()
		before := out.String()
		for range 50 {
			tick()
		}
		if after := out.String(); after != before {
			t.Errorf("%s: 50 idle ticks wrote %q", when, after[len(before):])
		}
	}
	idle("at the prompt")

	keys.Write([]byte("hi"))
	waitOut(t, &out, func(s string) bool { return strings.HasSuffix(s, "hi") })
	idle("with a line typed")

	c.setBusy(true)
	r.event(nil, host.AgentStartEvent{})
	for i := range 5 {
		before := out.String()
		tick()
		if out.String() == before {
			t.Fatalf("busy: tick %d redrew nothing", i)
		}
	}
	r.event(nil, host.MessageUpdateEvent{AssistantMessageEvent: host.AssistantMessageEvent{Type: host.StreamTextStart}})
	r.event(nil, host.MessageUpdateEvent{AssistantMessageEvent: host.AssistantMessageEvent{Type: host.StreamTextDelta, Delta: "hello\n"}})
	r.event(nil, host.MessageEndEvent{Message: &host.AssistantMessage{}})
	r.event(nil, host.AgentEndEvent{})
	c.setBusy(false)
	idle("after a run")

	c.setAsking(true)
	idle("asking")
	c.setAsking(false)
	idle("after asking")
	c.resize(40, 24)
	idle("after a resize")
}

// waitOut waits until what was written satisfies ok.
func waitOut(t *testing.T, out *syncBuffer, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok(out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("never written: %q", out.String())
		}
		time.Sleep(time.Millisecond)
	}
}
