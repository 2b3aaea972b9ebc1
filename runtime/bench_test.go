package runtime_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	extism "github.com/extism/go-sdk"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// Per-call cost of a trivial tool: echo of a small JSON call, through
// execute, against a native Go function doing the same decoding and
// encoding. Run with: go test ./runtime -run '^$' -bench . -count 6
func BenchmarkCall(b *testing.B) {
	in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c1", Name: "echo", Args: json.RawMessage(`{"text":"hello, world"}`)})
	b.Run("native", func(b *testing.B) {
		for b.Loop() {
			var x sdk.ExecuteInput
			if err := json.Unmarshal(in, &x); err != nil {
				b.Fatal(err)
			}
			var a struct {
				Text string `json:"text"`
			}
			if err := sdk.DecodeArgs(x.Args, &a); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(sdk.Text(a.Text)); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, pool := range []int{4, 0} {
		name := map[int]string{4: "go/pool=4", 0: "go/pool=0"}[pool]
		b.Run(name, func(b *testing.B) {
			p := probe(b, runtime.Grants{}, pool)
			time.Sleep(100 * time.Millisecond) // let the pool fill
			for b.Loop() {
				if _, err := p.Call(context.Background(), sdk.ExportExecute, in, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	echo := wasmbuild.EchoPlugin()
	for _, pool := range []int{4, 0} {
		name := map[int]string{4: "small/pool=4", 0: "small/pool=0"}[pool]
		b.Run(name, func(b *testing.B) {
			m, err := rt(b).Compile(context.Background(), "echo.wasm", echo)
			if err != nil {
				b.Fatal(err)
			}
			p, err := rt(b).NewPlugin(m, runtime.PluginOptions{PoolSize: pool})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			for b.Loop() {
				if _, err := p.Call(context.Background(), "echo", in, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// What plain go-sdk costs for the same isolation (a fresh instance per
	// call) and without it (one instance reused, which leaks state).
	for _, c := range []struct {
		name string
		wasm func() []byte
	}{
		{"go", func() []byte { w, _ := os.ReadFile(wasmbuild.ForTest(b, "internal/testplugins/probe")); return w }},
		{"small", func() []byte { return echo }},
	} {
		export := map[string]string{"go": "execute", "small": "echo"}[c.name]
		manifest := extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: c.wasm()}}}
		cached := extismPluginConfig(b)
		call := func(b *testing.B, p *extism.Plugin) {
			if _, _, err := p.Call(export, in); err != nil {
				b.Fatal(err)
			}
		}
		b.Run("extism-instance/"+c.name, func(b *testing.B) {
			ctx := context.Background()
			cp, err := extism.NewCompiledPlugin(ctx, manifest, cached, extismHostFunctions())
			if err != nil {
				b.Fatal(err)
			}
			defer cp.Close(ctx)
			for b.Loop() {
				p, err := cp.Instance(ctx, extism.PluginInstanceConfig{})
				if err != nil {
					b.Fatal(err)
				}
				call(b, p)
				p.Close(ctx)
			}
		})
		b.Run("extism-newplugin/"+c.name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				p, err := extism.NewPlugin(ctx, manifest, extism.PluginConfig{EnableWasi: true}, extismHostFunctions())
				if err != nil {
					b.Fatal(err)
				}
				call(b, p)
				p.Close(ctx)
			}
		})
		b.Run("extism-reused/"+c.name, func(b *testing.B) {
			ctx := context.Background()
			p, err := extism.NewPlugin(ctx, manifest, cached, extismHostFunctions())
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close(ctx)
			for b.Loop() {
				call(b, p)
			}
		})
	}
}

// Latency of one call when calls arrive one at a time: the pool has
// refilled between calls, so the call takes a ready instance. ns/op
// includes the gap; call-ns is the call alone. (StopTimer would stop the
// world to read memory statistics on every call and distort it.)
func BenchmarkCallLatency(b *testing.B) {
	in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c1", Name: "echo", Args: json.RawMessage(`{"text":"hello, world"}`)})
	m, err := rt(b).Compile(context.Background(), "echo.wasm", wasmbuild.EchoPlugin())
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		m      *runtime.Module
		export string
		gap    time.Duration
		pool   int
		how    runtime.ImageMemory
	}{
		{"go", compile(b, "internal/testplugins/probe"), sdk.ExportExecute, 15 * time.Millisecond, 2, ""},
		// With images, is a pool still worth its memory? (RATIONALE.md,
		// "Why do pools default to 1?")
		{"go/pool=0", compile(b, "internal/testplugins/probe"), sdk.ExportExecute, 15 * time.Millisecond, 0, ""},
		{"go/pool=1", compile(b, "internal/testplugins/probe"), sdk.ExportExecute, 15 * time.Millisecond, 1, ""},
		{"go/pool=0/map", compile(b, "internal/testplugins/probe"), sdk.ExportExecute, 15 * time.Millisecond, 0, runtime.ImageMemoryMap},
		{"go/pool=1/map", compile(b, "internal/testplugins/probe"), sdk.ExportExecute, 15 * time.Millisecond, 1, runtime.ImageMemoryMap},
		{"small", m, "echo", time.Millisecond, 2, ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			p, err := rt(b).NewPlugin(c.m, runtime.WithImageMemory(runtime.PluginOptions{PoolSize: c.pool}, c.how))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			var total time.Duration
			for b.Loop() {
				time.Sleep(c.gap)
				start := time.Now()
				if _, err := p.Call(context.Background(), c.export, in, nil); err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "call-ns")
		})
	}
}

// Instantiation: a fresh instance (no pool), from the plugin's image
// mapped copy-on-write (`image`) or copied (`image-copy`; `-nospare`:
// into a new mapping every time, not a closed instance's reset to the
// image), or initialised (`init`), one call, closed. The Go plugins make a trivial call (probe's
// echo) and a real one (calc's execute), the go-pdk-only plugin a noop.
func BenchmarkInstantiate(b *testing.B) {
	probeIn := []byte(`{"toolCallId":"c1","name":"echo","args":{"text":"hi"}}`)
	calcIn := []byte(`{"toolCallId":"c1","name":"calc","args":{"expression":"2^64 / 3 + 7 * (5 - 2)"}}`)
	for _, c := range []struct {
		name, pkg, export string
		in                []byte
	}{
		{"go", "internal/testplugins/probe", sdk.ExportExecute, probeIn},
		{"calc", "plugins/calc", sdk.ExportExecute, calcIn},
		{"go-pdk-only", "internal/testplugins/raw", "noop", nil},
		{"small", "", "noop", nil},
	} {
		for _, how := range []string{"image", "image-copy", "image-copy-nospare", "init"} {
			if c.pkg == "" && how != "image" {
				continue
			}
			name := c.name + "/" + how
			if c.pkg == "" {
				name = c.name
			}
			b.Run(name, func(b *testing.B) {
				var m *runtime.Module
				if c.pkg == "" {
					var err error
					if m, err = rt(b).Compile(context.Background(), "echo.wasm", wasmbuild.EchoPlugin()); err != nil {
						b.Fatal(err)
					}
				} else {
					m = compile(b, c.pkg)
				}
				opts := runtime.PluginOptions{NoImage: how == "init"}
				switch how {
				case "image":
					opts = runtime.WithImageMemory(opts, runtime.ImageMemoryMap)
				case "image-copy":
					opts = runtime.WithImageMemory(opts, runtime.ImageMemoryCopy)
				case "image-copy-nospare":
					opts = runtime.WithoutSpares(runtime.WithImageMemory(opts, runtime.ImageMemoryCopy))
				}
				p, err := rt(b).NewPlugin(m, opts)
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				if on, why := p.Image(); !on && how != "init" && c.pkg != "" {
					b.Fatalf("no image: %s", why)
				}
				for b.Loop() {
					if _, err := p.Call(context.Background(), c.export, c.in, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// Instance creation alone, for the Go test plugin: a fresh instance from
// the image, then closed, one after the other (as a pool refills after
// each call). ns/op is creation and close together; create-ns is the
// creation alone. `copy` gets the closed instance's memory, reset to the
// image (a spare); `copy-nospare` a new mapping each time; `map` the image
// mapped copy-on-write.
func BenchmarkInstanceCreation(b *testing.B) {
	m := compile(b, "internal/testplugins/probe")
	for _, c := range []struct {
		name string
		opts runtime.PluginOptions
	}{
		{"go/copy", runtime.WithImageMemory(runtime.PluginOptions{}, runtime.ImageMemoryCopy)},
		{"go/copy-nospare", runtime.WithoutSpares(runtime.WithImageMemory(runtime.PluginOptions{}, runtime.ImageMemoryCopy))},
		{"go/map", runtime.WithImageMemory(runtime.PluginOptions{}, runtime.ImageMemoryMap)},
	} {
		b.Run(c.name, func(b *testing.B) {
			p, err := rt(b).NewPlugin(m, c.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			var create time.Duration
			for b.Loop() {
				start := time.Now()
				inst := runtime.Pool(p, 1)
				create += time.Since(start)
				runtime.Unpool(inst)
			}
			b.ReportMetric(float64(create.Nanoseconds())/float64(b.N), "create-ns")
		})
	}
}

// Making a plugin of a compiled Go module (probe): its image taken from
// two initializations, then closed. B/op counts what taking the image
// allocates on the heap (`map`: the image in a memfd; `copy`: copied
// into each instance from the memfd as well).
func BenchmarkNewPlugin(b *testing.B) {
	m := compile(b, "internal/testplugins/probe")
	for _, how := range []runtime.ImageMemory{runtime.ImageMemoryMap, runtime.ImageMemoryCopy} {
		b.Run("go/"+string(how), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, err := rt(b).NewPlugin(m, runtime.WithImageMemory(runtime.PluginOptions{}, how))
				if err != nil {
					b.Fatal(err)
				}
				if on, why := p.Image(); !on {
					b.Fatalf("no image: %s", why)
				}
				p.Close()
			}
		})
	}
}

// Cold start of a Go plugin: a new Runtime compiling the module, with an
// empty and with a warm on-disk cache, to the first call's result.
func BenchmarkColdStart(b *testing.B) {
	wasm, err := os.ReadFile(wasmbuild.ForTest(b, "internal/testplugins/probe"))
	if err != nil {
		b.Fatal(err)
	}
	start := func(b *testing.B, dir string) {
		ctx := context.Background()
		r, err := runtime.New(ctx, runtime.Options{CacheDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close(ctx)
		m, err := r.Compile(ctx, "probe.wasm", wasm)
		if err != nil {
			b.Fatal(err)
		}
		p, err := r.NewPlugin(m, runtime.PluginOptions{})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		if _, err := p.Call(ctx, "describe", nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("empty-cache", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			dir := b.TempDir()
			b.StartTimer()
			start(b, dir)
		}
	})
	b.Run("warm-cache", func(b *testing.B) {
		dir := b.TempDir()
		start(b, dir)
		for b.Loop() {
			start(b, dir)
		}
	})
}

// Parallel really is parallel: 8 calls that each sleep 200 ms in a host
// function. Reports wall time per batch and its ratio to 8 × 200 ms
// (1 would be serial; 0.125 perfectly parallel).
func BenchmarkParallelSleep(b *testing.B) {
	p := probe(b, runtime.Grants{}, 8)
	time.Sleep(200 * time.Millisecond)
	const n, ms = 8, 200
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		var wg sync.WaitGroup
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := execute(context.Background(), p, "sleep", map[string]any{"ms": ms}, nil); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
		total += time.Since(start)
	}
	b.ReportMetric(float64(total)/float64(b.N)/float64(n*ms*time.Millisecond), "of-serial")
}

// How long an infinite loop keeps running after its call's context is
// cancelled.
func BenchmarkAbortLatency(b *testing.B) {
	p := probe(b, runtime.Grants{Timeout: time.Minute}, 2)
	var total time.Duration
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan time.Time, 1)
		go func() {
			execute(ctx, p, "spin", struct{}{}, nil)
			done <- time.Now()
		}()
		time.Sleep(20 * time.Millisecond)
		at := time.Now()
		cancel()
		total += (<-done).Sub(at)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-to-stop")
}

// Payloads: an echo of 1 KiB and of 1 MiB, and a CPU-bound call (sha256
// of 1 MiB in the guest), fresh instance per call from a warm pool,
// against native Go doing the same work.
func BenchmarkPayload(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		text := strings.Repeat("x", size)
		in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c", Name: "echo", Args: mustJSON(map[string]string{"text": text})})
		name := map[int]string{1 << 10: "echo-1KiB", 1 << 20: "echo-1MiB"}[size]
		b.Run(name+"/native", func(b *testing.B) {
			for b.Loop() {
				var x sdk.ExecuteInput
				json.Unmarshal(in, &x)
				var a struct{ Text string }
				json.Unmarshal(x.Args, &a)
				json.Marshal(sdk.Text(a.Text))
			}
		})
		b.Run(name+"/go", func(b *testing.B) {
			p := probe(b, runtime.Grants{}, 4)
			time.Sleep(100 * time.Millisecond)
			for b.Loop() {
				if _, err := p.Call(context.Background(), sdk.ExportExecute, in, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// A 1 MiB result from a small input: the target's "1 MiB result end
	// to end".
	big, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c", Name: "big", Args: json.RawMessage(`{"bytes":1048576}`)})
	b.Run("result-1MiB/native", func(b *testing.B) {
		for b.Loop() {
			var x sdk.ExecuteInput
			json.Unmarshal(big, &x)
			var a struct{ Bytes int }
			json.Unmarshal(x.Args, &a)
			json.Marshal(sdk.Text(strings.Repeat("x", a.Bytes)))
		}
	})
	b.Run("result-1MiB/go", func(b *testing.B) {
		p := probe(b, runtime.Grants{}, 4)
		time.Sleep(100 * time.Millisecond)
		for b.Loop() {
			if _, err := p.Call(context.Background(), sdk.ExportExecute, big, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The same through the output in parts (docs/abi.md), as wasmtool
	// calls execute: the text is not escaped in the guest and comes out
	// in one copy. call-ns is the call alone, after the pool refilled.
	b.Run("result-1MiB/go-parts", func(b *testing.B) {
		p := probe(b, runtime.Grants{}, 2)
		time.Sleep(100 * time.Millisecond)
		var total time.Duration
		for b.Loop() {
			time.Sleep(15 * time.Millisecond)
			var parts []string
			start := time.Now()
			_, err := p.Call(context.Background(), sdk.ExportExecute, big, &runtime.CallOptions{Parts: &parts})
			total += time.Since(start)
			if err != nil || len(parts) != 1 || len(parts[0]) != 1<<20 {
				b.Fatal(len(parts), err)
			}
		}
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "call-ns")
	})
	benchABI(b)
	in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c", Name: "hash", Args: json.RawMessage(`{"mib":1}`)})
	b.Run("sha256-1MiB/native", func(b *testing.B) {
		buf := make([]byte, 1<<20)
		for b.Loop() {
			sha256.Sum256(buf)
		}
	})
	b.Run("sha256-1MiB/go", func(b *testing.B) {
		p := probe(b, runtime.Grants{}, 4)
		time.Sleep(100 * time.Millisecond)
		for b.Loop() {
			if _, err := p.Call(context.Background(), sdk.ExportExecute, in, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// Parallel scaling: n concurrent calls, CPU-bound (sha256 of 1 MiB) and
// I/O-bound (a 100 ms sleep in a host function). Reports wall time per
// batch and its ratio to the ideal: n/cores × one call for CPU-bound work,
// one call for I/O-bound work.
func BenchmarkParallel(b *testing.B) {
	cores := goruntime.GOMAXPROCS(0)
	for _, kind := range []string{"cpu", "io"} {
		args := map[string]json.RawMessage{"cpu": json.RawMessage(`{"mib":1}`), "io": json.RawMessage(`{"ms":100}`)}[kind]
		tool := map[string]string{"cpu": "hash", "io": "sleep"}[kind]
		in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c", Name: tool, Args: args})
		p := probe(b, runtime.Grants{}, 32)
		time.Sleep(time.Second) // the pool fills
		call := func() {
			if _, err := p.Call(context.Background(), sdk.ExportExecute, in, nil); err != nil {
				b.Error(err)
			}
		}
		one := time.Now()
		call()
		single := time.Since(one)
		for _, n := range []int{1, 2, 4, 8, 32} {
			b.Run(fmt.Sprintf("%s/n=%d", kind, n), func(b *testing.B) {
				var total time.Duration
				for b.Loop() {
					start := time.Now()
					var wg sync.WaitGroup
					for range n {
						wg.Add(1)
						go func() { defer wg.Done(); call() }()
					}
					wg.Wait()
					total += time.Since(start)
				}
				ideal := single
				if kind == "cpu" {
					ideal = time.Duration(float64(single) * max(float64(n)/float64(cores), 1))
				}
				b.ReportMetric(float64(total)/float64(b.N)/float64(ideal), "x-ideal")
			})
		}
	}
}

// Memory: proportional resident memory (PSS: shared pages divided among
// their sharers) per pooled (idle, ready) instance, for a Go plugin from
// its image mapped copy-on-write and copied, and initialised, and for a
// small module; `after-call` is an instance that has served a call (probe's
// echo) and is not closed yet, as an instance is while its call returns.
// The plugin has served a few calls first (a mapped image learns from
// them the pages to populate up front).
func BenchmarkMemoryPerInstance(b *testing.B) {
	probe := func() *runtime.Module { return compile(b, "internal/testplugins/probe") }
	in := []byte(`{"toolCallId":"c1","name":"echo","args":{"text":"hi"}}`)
	for _, c := range []struct {
		name      string
		m         func() *runtime.Module
		opts      runtime.PluginOptions
		afterCall bool
	}{
		{"go/map", probe, runtime.WithImageMemory(runtime.PluginOptions{}, runtime.ImageMemoryMap), false},
		{"go/map/after-call", probe, runtime.WithImageMemory(runtime.PluginOptions{}, runtime.ImageMemoryMap), true},
		{"go/copy", probe, runtime.WithImageMemory(runtime.PluginOptions{}, runtime.ImageMemoryCopy), false},
		{"go/copy/after-call", probe, runtime.WithImageMemory(runtime.PluginOptions{}, runtime.ImageMemoryCopy), true},
		{"go/init", probe, runtime.PluginOptions{NoImage: true}, false},
		{"small", func() *runtime.Module {
			m, _ := rt(b).Compile(context.Background(), "echo.wasm", wasmbuild.EchoPlugin())
			return m
		}, runtime.PluginOptions{}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			const n = 50
			m := c.m()
			var perInstance float64
			for b.Loop() {
				// The plugin and its image first, then the pool.
				p, err := rt(b).NewPlugin(m, c.opts)
				if err != nil {
					b.Fatal(err)
				}
				if c.name != "small" {
					// As after a plugin's first calls: a mapped image
					// has learnt the pages calls use.
					if err := runtime.WarmImage(p, sdk.ExportExecute, in); err != nil {
						b.Fatal(err)
					}
				}
				debug.FreeOSMemory()
				before := pss()
				insts := runtime.Pool(p, n)
				if c.afterCall {
					for _, inst := range insts {
						if _, err := runtime.CallIn(inst, sdk.ExportExecute, in); err != nil {
							b.Fatal(err)
						}
					}
				}
				debug.FreeOSMemory()
				perInstance = float64(pss()-before) / n
				runtime.Unpool(insts)
				p.Close()
			}
			b.ReportMetric(perInstance/1024, "KiB/instance")
		})
	}
}

// Memory of 10 Go plugins loaded and idle, each from its own module,
// with no pool and with pools of one (the default), pools of one with
// images mapped copy-on-write (`map`), and with no pool and no images
// (`init`): PSS after loading them, over PSS before (compiled
// code included). (Pools of four measured 411 MiB: RATIONALE.md.)
func BenchmarkMemoryIdle(b *testing.B) {
	pkgs := []string{"plugins/calc", "plugins/fetch", "plugins/fs", "plugins/policy", "plugins/redact",
		"internal/testplugins/probe", "internal/testplugins/raw", "internal/testplugins/randomness", "plugins/calc", "internal/testplugins/probe"}
	for _, c := range []struct {
		pool    int
		noImage bool
		how     runtime.ImageMemory
	}{{0, false, ""}, {1, false, ""}, {1, false, runtime.ImageMemoryMap}, {0, true, ""}} {
		pool := c.pool
		name := fmt.Sprintf("plugins=10/pool=%d", pool)
		if c.noImage {
			name += "/init"
		}
		if c.how != "" {
			name += "/" + string(c.how)
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			var mib float64
			for b.Loop() {
				debug.FreeOSMemory()
				before := pss()
				r, err := runtime.New(ctx, runtime.Options{CacheDir: testCacheDir(b), ImageMemory: c.how})
				if err != nil {
					b.Fatal(err)
				}
				var ps []*runtime.Plugin
				for i, pkg := range pkgs {
					wasm, err := os.ReadFile(wasmbuild.ForTest(b, pkg))
					if err != nil {
						b.Fatal(err)
					}
					if i >= len(pkgs)-2 {
						wasm = append(wasm, 0, 2, 1, 'x') // a custom section: another module
					}
					m, err := r.Compile(ctx, pkg, wasm)
					if err != nil {
						b.Fatal(err)
					}
					p, err := r.NewPlugin(m, runtime.PluginOptions{PoolSize: pool, NoImage: c.noImage})
					if err != nil {
						b.Fatal(err)
					}
					ps = append(ps, p)
				}
				for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					full := true
					for _, p := range ps {
						full = full && p.Pooled() == pool
					}
					if full {
						break
					}
				}
				debug.FreeOSMemory()
				mib = float64(pss()-before) / (1 << 20)
				for _, p := range ps {
					p.Close()
				}
				r.Close(ctx)
			}
			b.ReportMetric(mib, "MiB")
		})
	}
}

// pss is the process's proportional resident memory (Linux), or its
// resident memory where smaps_rollup is missing.
func pss() int64 {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return rss()
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			var kb int64
			fmt.Sscan(rest, &kb)
			return kb << 10
		}
	}
	return rss()
}

// rss is the process's resident memory (Linux), or 0.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, res int64
	fmt.Sscan(string(b), &size, &res)
	return res * int64(os.Getpagesize())
}

// The host's resident memory with 100 calls in flight at once (each a Go
// plugin instance sleeping 300 ms in a host function), and per in-flight
// call.
func BenchmarkMemoryInFlight(b *testing.B) {
	const n = 100
	ctx := context.Background()
	r, err := runtime.New(ctx, runtime.Options{CacheDir: testCacheDir(b), MaxConcurrentCalls: n})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close(ctx)
	m, err := r.CompileFile(ctx, wasmbuild.ForTest(b, "internal/testplugins/probe"))
	if err != nil {
		b.Fatal(err)
	}
	p, err := r.NewPlugin(m, runtime.PluginOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	in, _ := json.Marshal(sdk.ExecuteInput{ToolCallID: "c", Name: "sleep", Args: json.RawMessage(`{"ms":300}`)})
	var peak, base int64
	for b.Loop() {
		debug.FreeOSMemory()
		base = rss()
		runtime.ResetPeakRSS()
		var wg sync.WaitGroup
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := p.Call(ctx, sdk.ExportExecute, in, nil); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
		peak, _ = runtime.PeakRSS()
	}
	b.ReportMetric(float64(peak)/(1<<20), "MiB-peak")
	b.ReportMetric(float64(peak-base)/n/(1<<20), "MiB/call")
}
