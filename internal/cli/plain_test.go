package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/provider"
)

// recScreen records what the renderer shows.
type recScreen struct {
	out      strings.Builder
	lines    []string
	lives    []string // every live line drawn, "" for a removal
	withText bool
}

func (s *recScreen) text(t string)         { s.out.WriteString(t) }
func (s *recScreen) line(t string, _ bool) { s.lines = append(s.lines, t) }
func (s *recScreen) live(t string)         { s.lives = append(s.lives, t) }
func (s *recScreen) liveWithText() bool    { return s.withText }

func (s *recScreen) lastLive() string {
	if len(s.lives) == 0 {
		return ""
	}
	return s.lives[len(s.lives)-1]
}

// The live line says what the agent waits for: the model, its reasoning
// (time, size, last words), a retry, a tool; text streams without it; a
// summary line ends the run.
func TestPlainRendererStatus(t *testing.T) {
	sc := &recScreen{}
	r := &plainRenderer{sc: sc, animate: true, maxLive: 160, running: map[string]*running{}}
	ev := func(e host.Event) {
		t.Helper()
		if err := r.event(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	stream := func(typ, delta string) {
		ev(host.MessageUpdateEvent{AssistantMessageEvent: host.AssistantMessageEvent{Type: typ, Delta: delta}})
	}
	ev(host.AgentStartEvent{})
	ev(host.TurnStartEvent{})
	if l := sc.lastLive(); !strings.Contains(l, "waiting for the model") {
		t.Fatalf("live %q", l)
	}
	r.retry(provider.Retry{Attempt: 1, Of: 2, Status: 429, Delay: 2 * time.Second}.String())
	if got := sc.lines[len(sc.lines)-1]; got != "rate limited (429), retry 1/2 in 2s" {
		t.Fatalf("retry line %q", got)
	}
	stream(host.StreamThinkingStart, "")
	stream(host.StreamThinkingDelta, strings.Repeat("ponder ", 300))
	stream(host.StreamThinkingDelta, "so the answer is 42")
	if l := sc.lastLive(); !strings.Contains(l, "thinking") || !strings.Contains(l, "2,119 chars") || !strings.HasSuffix(l, "so the answer is 42") {
		t.Fatalf("live %q", l)
	}
	stream(host.StreamThinkingEnd, "")
	if got := sc.lines[len(sc.lines)-1]; !strings.HasPrefix(got, "(thought for ") || !strings.HasSuffix(got, ", 2,119 chars)") {
		t.Fatalf("thinking line %q", got)
	}
	stream(host.StreamTextStart, "")
	stream(host.StreamTextDelta, "The answer")
	if l := sc.lastLive(); l != "" {
		t.Fatalf("a live line %q over open text", l)
	}
	r.note("(steering)")
	if strings.Contains(strings.Join(sc.lines, "\n"), "(steering)") {
		t.Fatal("a note cut the open line")
	}
	stream(host.StreamTextDelta, " is 42.")
	ev(host.MessageEndEvent{Message: &host.AssistantMessage{Usage: host.Usage{Input: 234, Output: 56, CacheRead: 1000}}})
	if sc.out.String() != "The answer is 42.\n" || sc.lines[len(sc.lines)-1] != "(steering)" {
		t.Fatalf("text %q, lines %q", sc.out.String(), sc.lines)
	}
	ev(host.ToolExecutionStartEvent{ToolCallID: "c1", ToolName: "calc", Args: json.RawMessage(`{"x":"<&>"}`)})
	if l := sc.lastLive(); !strings.Contains(l, "calc ") {
		t.Fatalf("live %q", l)
	}
	if got := sc.lines[len(sc.lines)-1]; got != `→ calc {"x":"<&>"}` {
		t.Fatalf("tool line %q", got)
	}
	ev(host.ToolExecutionEndEvent{ToolCallID: "c1", ToolName: "calc", Result: host.ToolResult{Content: host.Text("42")}})
	ev(host.TurnEndEvent{})
	ev(host.AgentEndEvent{})
	got := sc.lines[len(sc.lines)-1]
	if !strings.HasPrefix(got, "1 turn · 1 tool call · tokens 1,234 in (1,000 cached) / 56 out · ") || !strings.HasSuffix(got, "s") {
		t.Fatalf("summary %q", got)
	}
	if l := sc.lastLive(); l != "" {
		t.Fatalf("live %q after the end", l)
	}
}

// A run whose model reported no usage says so, not "tokens 0 in / 0 out"
// (read as a run that cost nothing); any usage at all is counted.
func TestSummaryWithoutUsage(t *testing.T) {
	for _, c := range []struct {
		usage host.Usage
		want  string
	}{
		{host.Usage{}, "1 turn · 2 tool calls · no token counts from the model · "},
		{host.Usage{Output: 1}, "1 turn · 2 tool calls · tokens 0 in / 1 out · "},
		{host.Usage{CacheRead: 3}, "1 turn · 2 tool calls · tokens 3 in (3 cached) / 0 out · "},
	} {
		s := summary{turns: 1, toolCalls: 2, usage: c.usage}
		if got := s.String(); !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v: %q, want %q…", c.usage, got, c.want)
		}
	}
}
