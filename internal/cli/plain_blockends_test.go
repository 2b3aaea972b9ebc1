package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
)

// A model adapter that ends its blocks only with the stream, as pi-ai's
// openai-completions does, sends thinking_end after the answer: the
// reasoning is summarised once, where the answer begins, before its text.
func TestPlainRendererReasoningEndsAtAnswer(t *testing.T) {
	sc := &recScreen{}
	r := &plainRenderer{sc: sc, animate: true, maxLive: 160, running: map[string]*running{}}
	stream := func(typ, delta string) {
		t.Helper()
		e := host.MessageUpdateEvent{AssistantMessageEvent: host.AssistantMessageEvent{Type: typ, Delta: delta}}
		if err := r.event(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	stream(host.StreamThinkingStart, "")
	stream(host.StreamThinkingDelta, "weigh it")
	stream(host.StreamTextStart, "")
	if n := len(sc.lines); n != 1 || !strings.HasPrefix(sc.lines[0], "(thought for ") || !strings.HasSuffix(sc.lines[0], ", 8 chars)") {
		t.Fatalf("at the answer's start, lines %q", sc.lines)
	}
	stream(host.StreamTextDelta, "42")
	stream(host.StreamThinkingDelta, " again") // reasoning resumes in its block
	stream(host.StreamToolCallStart, "")
	stream(host.StreamThinkingEnd, "")
	stream(host.StreamTextEnd, "")
	var sums []string
	for _, l := range sc.lines {
		if strings.HasPrefix(l, "(thought for ") {
			sums = append(sums, l)
		}
	}
	if len(sums) != 2 || !strings.HasSuffix(sums[1], ", 6 chars)") {
		t.Fatalf("summaries %q (want one per stretch of reasoning, none at the late thinking_end)", sums)
	}
}
