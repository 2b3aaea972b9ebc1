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
