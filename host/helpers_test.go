package host_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
)

func user(s string) *host.UserMessage {
	return &host.UserMessage{Content: host.Text(s), Timestamp: 1}
}

func say(s string) scripted.Turn { return scripted.Turn{Content: host.Text(s)} }

func call(id, name, args string) host.ToolCall {
	return host.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func calls(cs ...host.ToolCall) scripted.Turn {
	content := host.Contents{}
	for _, c := range cs {
		content = append(content, c)
	}
	return scripted.Turn{Content: content}
}

// loopRun runs RunLoop on a fresh context with the given tools and turns,
// recording every event.
type loopRun struct {
	t      *testing.T
	rec    *hosttest.Recorder
	model  *scripted.Model
	cfg    *host.Config
	tools  []host.Tool
	sink   host.Sink // nil: rec.Sink
	result []host.Message
	err    error
}

func newLoopRun(t *testing.T, tools []host.Tool, turns ...scripted.Turn) *loopRun {
	m := scripted.Of(turns...)
	// MaxConcurrency 1 runs a parallel batch's executions one after another
	// in source order (after the whole preflight, as always), which pins the
	// completion order that pi's synchronous test tools have. Tests about
	// real concurrency set it back to 0 (parallel_out_of_order, the hammer).
	cfg := &host.Config{Model: m, MaxConcurrency: 1}
	return &loopRun{t: t, rec: hosttest.NewRecorder(), model: m, cfg: cfg, tools: tools}
}

func (lr *loopRun) run(prompts ...host.Message) *loopRun {
	lr.t.Helper()
	c := &host.Context{SystemPrompt: "You are a test.", Tools: lr.tools}
	sink := lr.sink
	if sink == nil {
		sink = lr.rec.Sink
	}
	lr.result, lr.err = host.RunLoop(context.Background(), prompts, c, lr.cfg, sink)
	return lr
}

// golden compares the recorded events with testdata/NAME.jsonl.
func (lr *loopRun) golden(name string) {
	lr.t.Helper()
	golden(lr.t, lr.rec, name)
}

func golden(t *testing.T, rec *hosttest.Recorder, name string) {
	t.Helper()
	got, err := rec.JSONLines()
	if err != nil {
		t.Fatal(err)
	}
	hosttest.Golden(t, filepath.Join("testdata", name+".jsonl"), got)
}

// types returns the recorded event descriptions without message_update
// events, which depend only on chunking.
func types(rec *hosttest.Recorder) []string {
	var out []string
	for _, e := range rec.Events() {
		if _, ok := e.(host.MessageUpdateEvent); ok {
			continue
		}
		out = append(out, hosttest.Describe(e))
	}
	return out
}

func toolEnds(rec *hosttest.Recorder) []host.ToolExecutionEndEvent {
	var out []host.ToolExecutionEndEvent
	for _, e := range rec.Events() {
		if end, ok := e.(host.ToolExecutionEndEvent); ok {
			out = append(out, end)
		}
	}
	return out
}

func lastTurnEnd(t *testing.T, rec *hosttest.Recorder) host.TurnEndEvent {
	t.Helper()
	events := rec.Events()
	for i := len(events) - 1; i >= 0; i-- {
		if te, ok := events[i].(host.TurnEndEvent); ok {
			return te
		}
	}
	t.Fatal("no turn_end")
	return host.TurnEndEvent{}
}

func resultText(t *testing.T, rec *hosttest.Recorder, id string) (string, bool) {
	t.Helper()
	for _, e := range toolEnds(rec) {
		if e.ToolCallID == id {
			return e.Result.Content.TextOf(), e.IsError
		}
	}
	t.Fatalf("no tool_execution_end for %s", id)
	return "", false
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d\n got: %q\nwant: %q", len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("event %d: got %q, want %q\n got: %q\nwant: %q", i, got[i], want[i], got, want)
		}
	}
}
