package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// BenchmarkLoopTelemetry is host's BenchmarkLoop20Turns3Tools (20 turns of
// 3 parallel native tool calls and a before hook, then an answer) with
// telemetry off (the Observer is nil: what every run pays when
// [telemetry] is off), with metrics only, and with every span made and
// handed to an exporter that discards it. Compare the µs/turn side by side;
// docs/telemetry.md has figures.
func BenchmarkLoopTelemetry(b *testing.B) {
	noop := &host.ToolFunc{
		ToolInfo: host.ToolInfo{Name: "noop", Parameters: json.RawMessage(`{"type":"object","properties":{"i":{"type":"integer"}}}`)},
		Func: func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
			return host.ToolResult{Content: host.Text("ok")}, nil
		},
	}
	allow := host.BeforeToolCallFunc(func(context.Context, *host.ToolCallContext) (*host.BeforeToolCallResult, error) { return nil, nil })
	var turns []scripted.Turn
	for t := range 20 {
		var content host.Contents
		for _, c := range "abc" {
			content = append(content, host.ToolCall{ID: fmt.Sprintf("t%d%c", t, c), Name: "noop", Arguments: json.RawMessage(`{"i":1}`)})
		}
		turns = append(turns, scripted.Turn{Content: content})
	}
	turns = append(turns, scripted.Turn{Content: host.Text("done")})
	metricsOnly, err := build(config.Telemetry{}, Options{Prometheus: true}, nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	traced, err := build(config.Telemetry{}, Options{}, tracetest.NewNoopExporter(), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer traced.Shutdown(context.Background())
	for _, bc := range []struct {
		name string
		o    host.Observer
	}{{"off", nil}, {"metrics", metricsOnly.HostObserver()}, {"traces", traced.HostObserver()}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			sink := func(context.Context, host.Event) error { return nil }
			prompt := []host.Message{&host.UserMessage{Content: host.Text("go"), Timestamp: 1}}
			b.ReportAllocs()
			for b.Loop() {
				c := &host.Context{Tools: []host.Tool{noop}}
				cfg := &host.Config{Model: scripted.Of(turns...), BeforeToolCall: []host.BeforeToolCallHook{allow}, Observer: bc.o}
				if _, err := host.RunLoop(ctx, prompt, c, cfg, sink); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*21), "µs/turn")
		})
	}
}
