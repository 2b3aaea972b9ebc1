package runtime_test

import (
	"context"
	"encoding/json"
	"os"
	"runtime/debug"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// One plugin of each kind side by side: `small` (a module with no
// language runtime), `as` (AssemblyScript, plugins/text with the SDK's
// incremental GC), `go` (standard Go, the probe test plugin). For each:
// a fresh instance and one trivial tool call with no pool (call), the
// file size (bytes) and the resident memory per pooled instance
// (KiB/instance). Run with:
//
//	go test ./runtime -run '^$' -bench Languages -count 3
func BenchmarkLanguages(b *testing.B) {
	call := func(name string, args string) []byte {
		in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c1", Name: name, Args: json.RawMessage(args)})
		return in
	}
	kinds := []struct {
		name, export string
		input        []byte
		wasm         func(b *testing.B) []byte
	}{
		{"small", "echo", call("echo", `{"text":"hello, world"}`), func(*testing.B) []byte { return wasmbuild.EchoPlugin() }},
		{"as", sdk.ExportExecute, call("count", `{"text":"hello, world"}`), func(b *testing.B) []byte { return asText(b) }},
		{"go", sdk.ExportExecute, call("echo", `{"text":"hello, world"}`), func(b *testing.B) []byte {
			w, err := os.ReadFile(wasmbuild.ForTest(b, "internal/testplugins/probe"))
			if err != nil {
				b.Fatal(err)
			}
			return w
		}},
	}
	for _, k := range kinds {
		b.Run("call/"+k.name, func(b *testing.B) {
			wasm := k.wasm(b)
			p := pluginOf(b, k.name+".wasm", wasm, runtime.PluginOptions{PoolSize: 0})
			for b.Loop() {
				if _, err := p.Call(context.Background(), k.export, k.input, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(wasm)), "bytes")
		})
	}
	for _, k := range kinds {
		b.Run("memory/"+k.name, func(b *testing.B) {
			const n = 50
			m, err := rt(b).Compile(context.Background(), k.name+".wasm", k.wasm(b))
			if err != nil {
				b.Fatal(err)
			}
			var perInstance float64
			for b.Loop() {
				debug.FreeOSMemory()
				before := rss()
				p, err := rt(b).NewPlugin(m, runtime.PluginOptions{PoolSize: n})
				if err != nil {
					b.Fatal(err)
				}
				for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && p.Pooled() < n; time.Sleep(20 * time.Millisecond) {
				}
				perInstance = float64(rss()-before) / n
				p.Close()
			}
			b.ReportMetric(perInstance/1024, "KiB/instance")
		})
	}
}
