package runtime_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// hostLoops is a module whose exports call host functions in loops that
// never end, each doing much work per call and few fuel checks per
// second; and a few that misuse the ABI once.
func hostLoops() []byte {
	const (
		fAlloc = iota
		fFree
		fLogInfo
		fEmitUpdate
		fVarSet
		fRandomGet
		fOutputSet
		fPollOneoff
		fFuncs // first defined function
	)
	I32, I64 := wasmbuild.I32, wasmbuild.I64
	env := func(name string, params, results []byte) wasmbuild.Import {
		return wasmbuild.Import{Module: "extism:host/env", Name: name, Func: wasmbuild.Func{Params: params, Results: results}}
	}
	alloc := func(n int64) []byte { return ops(i64c(n), call(fAlloc)) }
	i32 := []byte{I32}
	exports := map[string]wasmbuild.Func{
		"spin": {Results: i32, Body: ops(forever(), i32c(0))},
		// 32 MiB allocated and freed, then a log line, forever.
		"alloc": {Results: i32, Locals: []byte{I64}, Body: ops(forever(
			alloc(32<<20), lset(0), lget(0), call(fFree),
			alloc(4000), call(fLogInfo),
		), i32c(0))},
		"updates": {Results: i32, Body: ops(forever(alloc(8<<20), call(fEmitUpdate)), i32c(0))},
		"random":  {Results: i32, Body: ops(forever(i32c(0), i32c(16<<20), call(fRandomGet), opDrop), i32c(0))},
		"vars":    {Results: i32, Body: ops(forever(alloc(1), alloc(1<<20), call(fVarSet)), i32c(0))},
		"logs":    {Results: i32, Body: ops(forever(alloc(4000), call(fLogInfo)), i32c(0))},
		// One update, then success: a late return when the update is slow.
		"update_once": {Results: i32, Body: ops(alloc(1), call(fEmitUpdate), i32c(0))},
		"oob_output":  {Results: i32, Body: ops(i64c(1<<40), i64c(10), call(fOutputSet), i32c(0))},
		"rc7":         {Results: i32, Body: i32c(7)},
		// One WASI sleep of 10 s (the subscription is at address 0), then
		// success.
		"sleep_once":  {Results: i32, Body: ops(i32c(0), i32c(64), i32c(1), i32c(128), call(fPollOneoff), opDrop, i32c(0))},
		"trap":        {Results: i32, Body: opTrap},
		"two_results": {Results: []byte{I32, I32}, Body: ops(i32c(0), i32c(0))},
	}
	m := wasmbuild.Module{
		Imports: []wasmbuild.Import{
			env("alloc", []byte{I64}, []byte{I64}),
			env("free", []byte{I64}, nil),
			env("log_info", []byte{I64}, nil),
			{Module: "extism:host/user", Name: "emit_update", Func: wasmbuild.Func{Params: []byte{I64}}},
			env("var_set", []byte{I64, I64}, nil),
			{Module: "wasi_snapshot_preview1", Name: "random_get", Func: wasmbuild.Func{Params: []byte{I32, I32}, Results: i32}},
			env("output_set", []byte{I64, I64}, nil),
			{Module: "wasi_snapshot_preview1", Name: "poll_oneoff", Func: wasmbuild.Func{Params: []byte{I32, I32, I32, I32}, Results: i32}},
		},
		Data:        sleepSubscription(10 * time.Second),
		Exports:     map[string]uint32{},
		MemoryPages: 257, // 16 MiB for random_get, and one more page
	}
	for _, name := range sortedNames(exports) {
		m.Exports[name] = uint32(fFuncs + len(m.Funcs))
		m.Funcs = append(m.Funcs, exports[name])
	}
	return m.Encode()
}

// sleepSubscription is a WASI poll_oneoff subscription to the monotonic
// clock, relative, for d.
func sleepSubscription(d time.Duration) []byte {
	sub := make([]byte, 48)
	// userdata 0; tag 0 (clock) at 8; clock id 1 (monotonic) at 16;
	// timeout at 24; precision 0; flags 0 (relative).
	sub[16] = 1
	binary.LittleEndian.PutUint64(sub[24:], uint64(d))
	return sub
}

func sortedNames[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// uncapped lifts every per-call cap, so that only the deadline stops a
// call.
func uncapped(timeout time.Duration) runtime.Grants {
	return runtime.Grants{
		Timeout: timeout, MemoryPages: 1024, MaxVarBytes: 2 << 20,
		MaxHostAllocBytes: 1 << 50, MaxUpdates: 1 << 30, MaxUpdateBytes: 1 << 50,
		MaxLogBytes: 1 << 40, MaxVarWriteBytes: 1 << 50,
	}
}

// hostLoopExports are the exports of hostLoops that loop in host
// functions, each a different kind of host work.
var hostLoopExports = []string{"spin", "alloc", "updates", "random", "vars", "logs"}

// A guest looping over host functions that each do much work stops at its
// deadline: every host function checks the call's context on entry. On
// the old main these calls ran for minutes (a fuel check every 65536
// iterations, each iteration tens of milliseconds of host work).
func TestDeadlineHoldsInHostFunctions(t *testing.T) {
	const timeout = 300 * time.Millisecond
	p := pluginOf(t, "hostloops.wasm", hostLoops(), runtime.PluginOptions{Grants: uncapped(timeout), PoolSize: 1})
	for _, export := range hostLoopExports {
		t.Run(export, func(t *testing.T) {
			start := time.Now()
			done := make(chan error, 1)
			go func() {
				_, err := p.Call(context.Background(), export, nil, &runtime.CallOptions{OnUpdate: func([]byte) error { return nil }})
				done <- err
			}()
			select {
			case err := <-done:
				took := time.Since(start)
				t.Logf("%s: ended %v after its %v timeout", export, (took - timeout).Round(time.Millisecond), timeout)
				if !errors.Is(err, runtime.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("err = %v, want ErrTimeout", err)
				}
			case <-time.After(stuckAfter(timeout)):
				t.Fatalf("the call did not end within %v of its start, with a %v timeout", stuckAfter(timeout), timeout)
			}
		})
	}
}

// Work in host functions counts against per-call caps, and the error
// names the cap.
func TestHostWorkCaps(t *testing.T) {
	for _, c := range []struct {
		export string
		grants runtime.Grants
		cap    string
	}{
		{"alloc", runtime.Grants{MemoryPages: 1024, MaxHostAllocBytes: 256 << 20}, "MaxHostAllocBytes"},
		{"updates", runtime.Grants{MemoryPages: 1024}, "MaxUpdateBytes"},
		{"updates", runtime.Grants{MemoryPages: 1024, MaxUpdates: 3}, "MaxUpdates"},
		{"vars", runtime.Grants{MemoryPages: 1024, MaxVarBytes: 2 << 20, MaxVarWriteBytes: 16 << 20}, "MaxVarWriteBytes"},
		{"vars", runtime.Grants{MemoryPages: 1024}, "MaxVarBytes"},
		{"logs", runtime.Grants{MemoryPages: 1024, MaxLogBytes: 64 << 10}, "MaxLogBytes"},
		{"logs", runtime.Grants{MemoryPages: 1024}, "MaxLogBytes"},
	} {
		t.Run(c.export+"/"+c.cap, func(t *testing.T) {
			c.grants.Timeout = time.Minute
			p := pluginOf(t, "hostloops.wasm", hostLoops(), runtime.PluginOptions{Grants: c.grants})
			_, err := p.Call(context.Background(), c.export, nil, nil)
			var ce *runtime.CapError
			if !errors.As(err, &ce) || !errors.Is(err, runtime.ErrCap) || ce.Cap != c.cap {
				t.Fatalf("err = %v, want a CapError for %s", err, c.cap)
			}
			if errors.Is(err, runtime.ErrTrap) || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a cap error also matches another cause: %v", err)
			}
		})
	}
}

// A call whose host function outlasts the deadline and then returns
// success is an error: the result came too late.
func TestLateReturnIsAnError(t *testing.T) {
	p := pluginOf(t, "hostloops.wasm", hostLoops(), runtime.PluginOptions{Grants: runtime.Grants{Timeout: 100 * time.Millisecond}})
	slow := &runtime.CallOptions{OnUpdate: func([]byte) error { time.Sleep(400 * time.Millisecond); return nil }}
	_, err := p.Call(context.Background(), "update_once", nil, slow)
	if !errors.Is(err, runtime.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
}

// BenchmarkDeadlineOvershoot measures how long after its deadline a call
// ends, for each kind of host work in a loop (ms-over, the figure of
// SECURITY.md row 1).
func BenchmarkDeadlineOvershoot(b *testing.B) {
	const timeout = 50 * time.Millisecond
	p := pluginOf(b, "hostloops.wasm", hostLoops(), runtime.PluginOptions{Grants: uncapped(timeout), PoolSize: 1})
	for _, export := range hostLoopExports {
		b.Run(export, func(b *testing.B) {
			var worst time.Duration
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := p.Call(context.Background(), export, nil, nil); !errors.Is(err, runtime.ErrTimeout) {
					b.Fatal(err)
				}
				over := time.Since(start) - timeout
				total += over
				worst = max(worst, over)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-over")
			b.ReportMetric(float64(worst.Microseconds())/1000, "ms-over-max")
		})
	}
}

// The HTTP requests of one call are capped, by name.
func TestHTTPRequestsCap(t *testing.T) {
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	p := probe(t, runtime.Grants{Hosts: []string{u.Host}, MaxHTTPRequests: 2}, 0)
	if r, err := execute(context.Background(), p, "fetch", map[string]any{"url": srv.URL, "n": 2}, nil); err != nil || text(r) != "200 ok" {
		t.Fatalf("two requests: %q %v", text(r), err)
	}
	_, err := execute(context.Background(), p, "fetch", map[string]any{"url": srv.URL, "n": 3}, nil)
	var ce *runtime.CapError
	if !errors.As(err, &ce) || ce.Cap != "MaxHTTPRequests" {
		t.Fatalf("three requests: err = %v, want a CapError for MaxHTTPRequests", err)
	}
	if n := served.Load(); n != 4 {
		t.Fatalf("the server saw %d requests, want 4 (the third of the second call never left)", n)
	}
}
