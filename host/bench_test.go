package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// BenchmarkLoop20Turns3Tools is issue 7's loop scenario with native Go
// tools: 20 turns of 3 parallel trivial tool calls, then a text answer.
// It reports events per second and time per turn.
func BenchmarkLoop20Turns3Tools(b *testing.B) {
	noop := &host.ToolFunc{
		ToolInfo: host.ToolInfo{Name: "noop", Parameters: json.RawMessage(`{"type":"object","properties":{"i":{"type":"integer"}}}`)},
		Func: func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
			return host.ToolResult{Content: host.Text("ok")}, nil
		},
	}
	var turns []scripted.Turn
	for t := range 20 {
		turns = append(turns, calls(
			call(fmt.Sprintf("t%da", t), "noop", `{"i":1}`),
			call(fmt.Sprintf("t%db", t), "noop", `{"i":2}`),
			call(fmt.Sprintf("t%dc", t), "noop", `{"i":3}`)))
	}
	turns = append(turns, say("done"))
	ctx := context.Background()
	events := 0
	sink := func(context.Context, host.Event) error { events++; return nil }
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		m := scripted.Of(turns...)
		c := &host.Context{Tools: []host.Tool{noop}}
		if _, err := host.RunLoop(ctx, []host.Message{user("go")}, c, &host.Config{Model: m}, sink); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*21), "µs/turn")
}

// BenchmarkToolRunnerHooks runs one call through the ToolRunner with no
// hook, then with a rewriting hook (so the arguments are validated again)
// and a gate: the cost of the pipeline's extensions per call.
func BenchmarkToolRunnerHooks(b *testing.B) {
	noop := &host.ToolFunc{
		ToolInfo: host.ToolInfo{Name: "write", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer"}},"required":["path"]}`)},
		Func: func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
			return host.ToolResult{Content: host.Text("ok")}, nil
		},
	}
	rewrite := host.BeforeToolCallFunc(func(context.Context, *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
		return &host.BeforeToolCallResult{Args: json.RawMessage(`{"path":"/work/a","n":"1"}`)}, nil
	})
	allow := host.BeforeToolCallFunc(func(context.Context, *host.ToolCallContext) (*host.BeforeToolCallResult, error) { return nil, nil })
	call := host.ToolCall{ID: "1", Name: "write", Arguments: json.RawMessage(`{"path":"a","n":1}`)}
	for _, c := range []struct {
		name  string
		hooks []host.BeforeToolCallHook
	}{
		{"none", nil},
		{"allow", []host.BeforeToolCallHook{allow}},
		{"rewrite+gate", []host.BeforeToolCallHook{host.WithBeforeOptions(allow, host.HookOptions{Gate: true}), rewrite}},
	} {
		b.Run(c.name, func(b *testing.B) {
			tr := &host.ToolRunner{Tools: []host.Tool{noop}, BeforeToolCall: c.hooks}
			b.ReportAllocs()
			for range b.N {
				if out := tr.Run(context.Background(), nil, nil, call, nil); out.IsError {
					b.Fatal(out.Result.Content.TextOf())
				}
			}
		})
	}
}
