package scripted_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
)

func stream(t *testing.T, ctx context.Context, m *scripted.Model) ([]host.AssistantMessageEvent, *host.AssistantMessage) {
	t.Helper()
	var events []host.AssistantMessageEvent
	final := m.Stream(ctx, &host.Request{}, func(e host.AssistantMessageEvent) { events = append(events, e) })
	return events, final
}

func kinds(events []host.AssistantMessageEvent) string {
	var out []string
	for _, e := range events {
		out = append(out, e.Type)
	}
	return strings.Join(out, " ")
}

func TestChunksOf4xTokens(t *testing.T) {
	s, err := scripted.Parse([]byte(`{"chunkTokens":1,"turns":[{"content":[{"type":"text","text":"abcdefghij"},{"type":"toolCall","id":"c","name":"n","arguments":{"a": 1}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	events, final := stream(t, context.Background(), scripted.New(s))
	want := "start text_start text_delta text_delta text_delta text_end toolcall_start toolcall_delta toolcall_delta toolcall_end done"
	if got := kinds(events); got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	if events[2].Delta != "abcd" || events[4].Delta != "ij" || events[7].Delta != `{"a"` || events[8].Delta != ":1}" {
		t.Fatalf("chunks %q %q %q %q", events[2].Delta, events[4].Delta, events[7].Delta, events[8].Delta)
	}
	if final.StopReason != host.StopReasonToolUse || len(events[0].Partial.Content) != 0 || events[0].Partial.StopReason != host.StopReasonToolUse {
		t.Fatalf("start partial must be the final message without content: %+v", events[0].Partial)
	}
}

func TestExhaustedBeforeAborted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	events, final := stream(t, ctx, scripted.Of())
	if kinds(events) != "error" || final.ErrorMessage != "No more faux responses queued" || final.StopReason != host.StopReasonError {
		t.Fatalf("%s %+v", kinds(events), final)
	}
	events, final = stream(t, ctx, scripted.Of(scripted.Turn{Content: host.Text("x")}))
	if kinds(events) != "error" || final.ErrorMessage != "Request was aborted" || final.StopReason != host.StopReasonAborted || len(final.Content) != 0 {
		t.Fatalf("%s %+v", kinds(events), final)
	}
}

func TestThrow(t *testing.T) {
	events, final := stream(t, context.Background(), scripted.Of(scripted.Turn{Throw: "rate limited", Content: host.Text("x")}))
	if kinds(events) != "error" || final.ErrorMessage != "rate limited" || len(final.Content) != 0 {
		t.Fatalf("%s %+v", kinds(events), final)
	}
}

func TestAbortMidStreamKeepsPartial(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := scripted.Of(scripted.Turn{Content: host.Text(strings.Repeat("x", 64)), ChunkDelayMs: 20})
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	events, final := stream(t, ctx, m)
	if events[len(events)-1].Type != host.StreamError || final.StopReason != host.StopReasonAborted {
		t.Fatalf("%s", kinds(events))
	}
	if n := len(final.Content.TextOf()); n == 0 || n >= 64 {
		t.Fatalf("aborted message holds %d characters, want the partial text", n)
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{
		`{"turns":[{"content":"x","bogus":1}]}`,
		`{"turns":[{"stopReason":"finished"}]}`,
		`{"turns":[{"content":[{"type":"image"}]}]}`,
		`{"turns":[{"content":[{"type":"toolCall","name":"x"}]}]}`,
		`{"turns":[]} trailing`,
		`{"chunkTokens":-1}`,
	} {
		if _, err := scripted.Parse([]byte(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}
