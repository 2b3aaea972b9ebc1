package wasmtool_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// The loop with Wasm tools: the scripted session of host's
// BenchmarkLoop20Turns3Tools and of pi's bench.mjs (20 turns of 3 parallel
// calls), each call in a fresh instance of a Go plugin from a warm pool.
//
//	go test ./host/wasmtool -run '^$' -bench Loop -count 5
func BenchmarkLoopWasm20Turns3Tools(b *testing.B) {
	small, err := wasmtool.LoadBytes(context.Background(), rt(b), "const.wasm", wasmbuild.ConstPlugin(map[string]string{
		"describe": `{"abi":1,"name":"const","tools":[{"name":"echo","description":"ok","parameters":{"type":"object"}}]}`,
		"execute":  `{"content":[{"type":"text","text":"ok"}]}`,
	}), wasmtool.Options{PoolSize: 8})
	if err != nil {
		b.Fatal(err)
	}
	defer small.Close()
	for _, c := range []struct {
		name string
		p    *wasmtool.Plugin
	}{
		{"small", small},
		{"go", mustLoadPool(b, 8)},
		// Without the instance image: each instance runs Go's init.
		{"go/init", mustLoad(b, "internal/testplugins/probe", wasmtool.Options{Name: "probe", PoolSize: 8, NoImage: true})},
	} {
		b.Run(c.name, func(b *testing.B) { loopBench(b, c.p) })
	}
}

func loopBench(b *testing.B, pp *wasmtool.Plugin) {
	time.Sleep(time.Second)
	var turns []scripted.Turn
	for t := range 20 {
		turns = append(turns, scripted.Turn{Content: calls(
			call(fmt.Sprintf("t%da", t), "echo", `{"text":"1"}`),
			call(fmt.Sprintf("t%db", t), "echo", `{"text":"2"}`),
			call(fmt.Sprintf("t%dc", t), "echo", `{"text":"3"}`))})
	}
	turns = append(turns, scripted.Turn{Content: host.Text("done")})
	ctx := context.Background()
	events := 0
	sink := func(context.Context, host.Event) error { events++; return nil }
	for b.Loop() {
		m := scripted.Of(turns...)
		c := &host.Context{Tools: pp.Tools()}
		if _, err := host.RunLoop(ctx, []host.Message{user("go")}, c, &host.Config{Model: m}, sink); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*21), "µs/turn")
}

// A 1 MiB text result end to end: the tool call as the loop makes it
// (ExecuteInput encoded, a fresh instance of the Go probe plugin from a
// warm pool, the plugin's Result out of the guest, decoded and checked
// into a host.ToolResult). The target is < 2 ms (docs/benchmarks.md):
// call-ns is the call alone, after a pause in which the pool refills, as
// a tool call of the loop meets it; ns/op includes the refill.
//
//	go test ./host/wasmtool -run '^$' -bench Result1MiB -count 3
func BenchmarkResult1MiB(b *testing.B) {
	p := mustLoadPool(b, 2)
	tool := toolNamed(b, p, "big")
	time.Sleep(100 * time.Millisecond)
	var total time.Duration
	for b.Loop() {
		time.Sleep(15 * time.Millisecond)
		start := time.Now()
		res, err := tool.Execute(context.Background(), "c", []byte(`{"bytes":1048576}`), nil)
		total += time.Since(start)
		if err != nil || len(res.Content.TextOf()) != 1<<20 {
			b.Fatal(len(res.Content.TextOf()), err)
		}
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "call-ns")
}

func toolNamed(tb testing.TB, p *wasmtool.Plugin, name string) host.Tool {
	tb.Helper()
	for _, t := range p.Tools() {
		if t.Info().Name == name {
			return t
		}
	}
	tb.Fatalf("no tool %q", name)
	return nil
}
