package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// hostileRuntime is a Runtime whose log the test reads: pools report
// their failures there.
type hostileRuntime struct {
	*runtime.Runtime
	mu  sync.Mutex
	log bytes.Buffer
}

func newHostileRuntime(t testing.TB) *hostileRuntime {
	t.Helper()
	h := &hostileRuntime{}
	r, err := runtime.New(context.Background(), runtime.Options{
		CacheDir: testCacheDir(t),
		Logger:   slog.New(slog.NewTextHandler(lockedWriter{&h.mu, &h.log}, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	h.Runtime = r
	return h
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func (h *hostileRuntime) logged() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.log.String()
}

// outcome is how far a module got: refused at compile, refused by
// NewPlugin, or called (err is the first call error, or nil).
type outcome struct {
	stage string // "compile", "plugin", "call"
	err   error
}

// run loads wasm with a pool on, lets the pool try to fill, calls every
// export, and closes the plugin. Every error must be well formed: a call
// error is a *CallError matching exactly one cause, and never ErrHost.
func (h *hostileRuntime) run(t *testing.T, name string, wasm []byte, g runtime.Grants) outcome {
	t.Helper()
	ctx := context.Background()
	m, err := h.Compile(ctx, name, wasm)
	if err != nil {
		if err.Error() == "" {
			t.Fatalf("%s: an empty compile error", name)
		}
		return outcome{"compile", err}
	}
	p, err := h.NewPlugin(m, runtime.PluginOptions{Grants: g, PoolSize: 2})
	if err != nil {
		return outcome{"plugin", err}
	}
	defer p.Close()
	// Give the pool's goroutine its chance to instantiate (and, on the old
	// main, to panic).
	for deadline := time.Now().Add(2 * time.Second); p.Pooled() == 0 && time.Now().Before(deadline); {
		if strings.Contains(h.logged(), name) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	var first error
	for _, export := range m.Exports() {
		if initExports[export] {
			continue // instantiate calls them, never Call
		}
		_, err := p.Call(ctx, export, []byte(`{"toolCallId":"c1","name":"add","args":{"a":1,"b":2}}`), nil)
		if err == nil {
			continue
		}
		var ce *runtime.CallError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: %s: error %v (%T) is not a *CallError", name, export, err, err)
		}
		if c := causeOf(t, err); c == "ErrHost" {
			t.Fatalf("%s: %s: the host failed: %v", name, export, err)
		}
		if first == nil {
			first = err
		}
	}
	return outcome{"call", first}
}

var initExports = map[string]bool{"_initialize": true, "_start": true, "__wasm_call_ctors": true, "hs_init": true}

func execute0(body []byte) map[string]wasmbuild.Func {
	return map[string]wasmbuild.Func{"execute": {Results: []byte{wasmbuild.I32}, Body: body}}
}

func module(funcs map[string]wasmbuild.Func, memPages uint32) []byte {
	m := wasmbuild.Module{Exports: map[string]uint32{}, MemoryPages: memPages}
	for _, name := range sortedNames(funcs) {
		m.Exports[name] = uint32(len(m.Funcs))
		m.Funcs = append(m.Funcs, funcs[name])
	}
	return m.Encode()
}

// Broken and hostile modules, each loaded with a pool on and called: the
// process survives every one, each is refused with a message or fails
// its calls with a well-formed error, and the runtime keeps working. On
// the old main, the first one (a memory over the grant that is not
// exported) panicked in the pool's goroutine and ended the process.
func TestHostileModulesNeverTakeTheHostDown(t *testing.T) {
	h := newHostileRuntime(t)
	g := runtime.Grants{MemoryPages: 16, Timeout: 300 * time.Millisecond}
	ret0 := execute0(i32c(0))
	noMem := module(ret0, 0)
	withStart := func(body []byte) []byte {
		m := wasmbuild.Module{Funcs: []wasmbuild.Func{{Results: []byte{wasmbuild.I32}, Body: i32c(0)}, {Body: body}}, Exports: map[string]uint32{"execute": 0}}.Encode()
		return withSection(m, 8, wasmbuild.ULEB(1))
	}
	for _, c := range []struct {
		name string
		wasm []byte
		// want: the stage it stops at ("" for any) and words its error
		// must contain.
		stage, text string
	}{
		{"unexported memory over the grant", withSection(noMem, 5, memorySection(4096)), "", "pages"},
		{"unexported memory at the Wasm maximum", withSection(noMem, 5, memorySection(65536)), "", "pages"},
		{"exported memory over the grant", module(ret0, 4096), "plugin", "pages"},
		{"unexported memory within the grant", withSection(noMem, 5, memorySection(8)), "call", ""},
		{"a table of ten million entries", withSection(noMem, 4, tableSection(10_000_000)), "", ""},
		{"a start function that traps", withStart(opTrap), "call", "unreachable"},
		{"execute with two results", module(map[string]wasmbuild.Func{"execute": {Results: []byte{wasmbuild.I32, wasmbuild.I32}, Body: ops(i32c(0), i32c(0))}}, 1), "compile", "execute"},
		{"_initialize that traps", module(map[string]wasmbuild.Func{"_initialize": {Body: opTrap}, "execute": {Results: []byte{wasmbuild.I32}, Body: i32c(0)}}, 1), "call", "unreachable"},
		{"runaway recursion", module(execute0(ops(call(0))), 1), "call", ""},
		// wazero's poll_oneoff multiplies the count by 48 in 32 bits: 2^28
		// subscriptions read as none, and its loop indexes past them (a Go
		// panic inside wazero, which wazero recovers: the call fails).
		{"poll_oneoff with 2^28 subscriptions", wasmbuild.Module{
			Imports: []wasmbuild.Import{{Module: "wasi_snapshot_preview1", Name: "poll_oneoff", Func: wasmbuild.Func{Params: []byte{wasmbuild.I32, wasmbuild.I32, wasmbuild.I32, wasmbuild.I32}, Results: []byte{wasmbuild.I32}}}},
			Funcs:   []wasmbuild.Func{{Results: []byte{wasmbuild.I32}, Body: ops(i32c(100), i32c(200), i32c(1<<28), i32c(300), call(0))}},
			Exports: map[string]uint32{"execute": 1}, MemoryPages: 1,
		}.Encode(), "call", ""},
		// wazero's fd_filestat_set_times on stdin, with no time to set,
		// falls back to a path on a file system stdin does not have (a nil
		// pointer dereference inside wazero, recovered: the call fails).
		{"fd_filestat_set_times on stdin", wasmbuild.Module{
			Imports: []wasmbuild.Import{{Module: "wasi_snapshot_preview1", Name: "fd_filestat_set_times", Func: wasmbuild.Func{Params: []byte{wasmbuild.I32, wasmbuild.I64, wasmbuild.I64, wasmbuild.I32}, Results: []byte{wasmbuild.I32}}}},
			Funcs:   []wasmbuild.Func{{Results: []byte{wasmbuild.I32}, Body: ops(i32c(0), i64c(1), i64c(0), i32c(0), call(0))}},
			Exports: map[string]uint32{"execute": 1}, MemoryPages: 1,
		}.Encode(), "call", ""},
		{"a truncated module", noMem[:len(noMem)-3], "compile", ""},
		{"not Wasm at all", []byte("#!/bin/sh\nrm -rf /\n"), "compile", ""},
		{"an empty file", nil, "compile", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := h.run(t, c.name, c.wasm, g)
			if c.stage != "" && o.stage != c.stage {
				t.Fatalf("stopped at %s (%v), want %s", o.stage, o.err, c.stage)
			}
			if c.text != "" && (o.err == nil || !strings.Contains(o.err.Error(), c.text)) {
				t.Fatalf("%s: err = %v, want it to say %q", o.stage, o.err, c.text)
			}
			t.Logf("%s: %v", o.stage, o.err)
		})
	}
	// The runtime still works.
	p, err := h.NewPlugin(mustCompile(t, h.Runtime, wasmbuild.EchoPlugin()), runtime.PluginOptions{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if out, err := p.Call(context.Background(), "echo", []byte("alive"), nil); err != nil || string(out) != "alive" {
		t.Fatalf("after the corpus: %q %v", out, err)
	}
}

func mustCompile(t testing.TB, r *runtime.Runtime, wasm []byte) *runtime.Module {
	t.Helper()
	m, err := r.Compile(context.Background(), "m.wasm", wasm)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Mutations of real plugins, each loaded with a pool on and called: the
// process survives every one. A fixed seed set runs here; FuzzHostileModule
// runs open-ended.
func TestMutatedPluginsNeverTakeTheHostDown(t *testing.T) {
	h := newHostileRuntime(t)
	rng := rand.New(rand.NewPCG(11, 2))
	echo := wasmbuild.EchoPlugin()
	counts := map[string]int{}
	for i := range 300 {
		wasm := wasmbuild.Mutate(rng, echo, true)
		o := h.run(t, fmt.Sprintf("echo-%d", i), wasm, runtime.Grants{MemoryPages: 16, Timeout: 200 * time.Millisecond})
		counts[o.stage]++
	}
	if testing.Short() {
		t.Logf("echo mutations: %v; -short: no calc mutations", counts)
		return
	}
	calc, err := os.ReadFile(wasmbuild.ForTest(t, wasmbuild.MutatedPlugin))
	if err != nil {
		t.Fatal(err)
	}
	// A calc mutation that loads is a Go plugin compiled (15 MB of
	// machine code, 15 s and more of CPU under the race detector on a
	// machine whose cache does not hold it yet): make test's prewarm
	// compiles the same mutations, without the race detector. Under
	// -race the first 3 of the same 8 run (calc-2 loads and is called);
	// make test runs this test without the race detector three more
	// times, all 8.
	n := wasmbuild.MutationCount
	if runtime.RaceEnabled {
		n = 3
	}
	for i, wasm := range wasmbuild.PluginMutations(calc, n) {
		o := h.run(t, fmt.Sprintf("calc-%d", i), wasm, runtime.Grants{Timeout: time.Second})
		counts["calc "+o.stage]++
		t.Logf("calc-%d: %s %v", i, o.stage, o.err)
	}
	t.Logf("outcomes: %v", counts)
}

// FuzzHostileModule loads any bytes as a plugin with a pool on and calls
// every export: nothing the module does takes the host down.
func FuzzHostileModule(f *testing.F) {
	f.Add(wasmbuild.EchoPlugin())
	f.Add(withSection(module(execute0(i32c(0)), 0), 5, memorySection(4096)))
	f.Add(hostLoops())
	h := newHostileRuntime(f)
	f.Fuzz(func(t *testing.T, wasm []byte) {
		h.run(t, "fuzz.wasm", wasm, runtime.Grants{MemoryPages: 16, Timeout: 100 * time.Millisecond})
	})
}

// A panic in the host's own code run for a call (here the caller's
// OnUpdate) fails that call with ErrHost; the plugin and the runtime go
// on.
func TestHostPanicFailsOnlyItsCall(t *testing.T) {
	p := pluginOf(t, "hostloops.wasm", hostLoops(), runtime.PluginOptions{PoolSize: 1})
	boom := &runtime.CallOptions{OnUpdate: func([]byte) error { panic("boom in OnUpdate") }}
	_, err := p.Call(context.Background(), "update_once", nil, boom)
	if c := causeOf(t, err); c != "ErrHost" || !strings.Contains(err.Error(), "boom in OnUpdate") {
		t.Fatalf("cause %s: %v", c, err)
	}
	if _, err := p.Call(context.Background(), "update_once", nil, nil); err != nil {
		t.Fatalf("after a host panic: %v", err)
	}
}
