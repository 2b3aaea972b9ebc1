package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// hostileABICalls is a module whose execute calls host functions of
// extism:host/env and extism:host/user in a random sequence, with
// arguments drawn from values a broken or hostile plugin would pass:
// zero, small offsets, the last offset a host function returned (and
// next to it), the memory limit and past it, 2^32, 2^63 and -1. Freeing
// twice, reading a freed block, lengths of wild offsets, output_set with
// an offset and a length whose sum wraps, error_set, config_get, var_set,
// log_*, emit_update and http_request on garbage: all of it comes up.
func hostileABICalls(seed uint64, limit int64) ([]byte, string) {
	return hostileCalls(seed, limit, runtime.HostFunctionTypes())
}

// hostileCalls is hostileABICalls over the functions of types. Its i32
// arguments, WASI's pointers, lengths and counts, come from values that
// overflow a 32-bit product or a bounds check: 2^28 and 2^29 (times 16,
// 32 or 48 wrap to small numbers), 0x55555556, the end of memory, -1.
func hostileCalls(seed uint64, limit int64, types map[string][2][]byte) ([]byte, string) {
	rng := rand.New(rand.NewPCG(seed, 99))
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range types {
			if !yield(n) {
				return
			}
		}
	})
	var imports []wasmbuild.Import
	for _, n := range names {
		dot := strings.LastIndex(n, ".")
		imports = append(imports, wasmbuild.Import{Module: n[:dot], Name: n[dot+1:], Func: wasmbuild.Func{Params: types[n][0], Results: types[n][1]}})
	}
	i64s := []int64{0, 1, 8, 9, 64, limit - 8, limit - 1, limit, limit + 1, 1 << 32, -1 << 63, -1, -8}
	arg := func(t byte) ([]byte, string) {
		if t == wasmbuild.I32 {
			i32s := []int64{0, 1, 3, 8, 255, 1024, 65535, 65536, 1 << 28, 1 << 29, 0x55555556, 0x7fffffff, -1}
			v := i32s[rng.IntN(len(i32s))]
			return i32c(v), fmt.Sprint(v)
		}
		switch rng.IntN(6) {
		case 0, 1, 2:
			return lget(0), "last" // the last offset
		case 3:
			d := int64(rng.IntN(16)) - 4
			return ops(lget(0), i64c(d), []byte{0x7c}), fmt.Sprintf("last%+d", d) // next to it
		}
		v := i64s[rng.IntN(len(i64s))]
		return i64c(v), fmt.Sprint(v)
	}
	var body []byte
	var trace []string
	for range 1 + rng.IntN(24) {
		f := rng.IntN(len(names))
		var args string
		if alloc := slices.Index(names, "extism:host/env.alloc"); alloc >= 0 && (f == alloc || rng.IntN(4) == 0) {
			// Allocate often, in sizes that matter: so that offsets are live.
			f = alloc
			body = append(body, i64c([]int64{1, 8, 100, limit / 2, limit}[rng.IntN(5)])...)
			args = "(size)"
		} else {
			var as []string
			for _, t := range types[names[f]][0] {
				b, a := arg(t)
				body = append(body, b...)
				as = append(as, a)
			}
			args = "(" + strings.Join(as, ",") + ")"
		}
		body = append(body, call(uint32(f))...)
		switch r := types[names[f]][1]; {
		case len(r) == 1 && r[0] == wasmbuild.I64:
			body = append(body, lset(0)...)
		case len(r) == 1:
			body = append(body, opDrop...)
		}
		trace = append(trace, names[f][strings.LastIndex(names[f], ".")+1:]+args)
	}
	body = append(body, i32c(int64(rng.IntN(2)))...) // 0 success, 1 an error
	return wasmbuild.Module{
		Imports: imports,
		Funcs:   []wasmbuild.Func{{Results: []byte{wasmbuild.I32}, Locals: []byte{wasmbuild.I64}, Body: body}},
		Exports: map[string]uint32{"execute": uint32(len(imports))}, MemoryPages: 1,
	}.Encode(), strings.Join(trace, " ")
}

// checkHostileABICall runs one generated sequence: it ends with a result
// or a well-formed error, never a host failure. It returns the cause
// ("ok" for a result). A sequence is a few dozen host calls with no loop:
// its timeout is generous, so that ErrTimeout means a host function that
// hung, not a machine that was busy.
func checkHostileABICall(t *testing.T, h *hostileRuntime, seed uint64) string {
	const pages = 4
	wasm, trace := hostileABICalls(seed, pages<<16)
	m, err := h.Compile(context.Background(), fmt.Sprintf("abi-%d.wasm", seed), wasm)
	if err != nil {
		t.Fatalf("seed %d: a generated module does not load: %v", seed, err)
	}
	p, err := h.NewPlugin(m, runtime.PluginOptions{Name: fmt.Sprintf("abi-%d", seed), Grants: runtime.Grants{
		MemoryPages: pages, Timeout: 30 * time.Second, Config: map[string]string{"k": "v"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Call(context.Background(), "execute", []byte("input"), &runtime.CallOptions{OnUpdate: func([]byte) error { return nil }})
	return hostileCause(t, seed, trace, err, "ErrHost", "ErrTimeout")
}

// hostileCause is "ok" for a call that succeeded, else the cause of its
// *CallError; any other error, or one of the causes refused, fails t.
func hostileCause(t *testing.T, seed uint64, trace string, err error, refused ...string) string {
	t.Helper()
	if err == nil {
		return "ok"
	}
	var ce *runtime.CallError
	if !errors.As(err, &ce) {
		t.Fatalf("seed %d (%s): %v (%T) is not a *CallError", seed, trace, err, err)
	}
	c := causeOf(t, err)
	if slices.Contains(refused, c) {
		t.Fatalf("seed %d (%s): %s: %v", seed, trace, c, err)
	}
	return c
}

// Random sequences of Extism and wasmagent host-function calls with wild
// arguments, 4 at a time: each call ends with a result or a well-formed
// error naming its cause, never a host failure, and the
// runtime goes on serving. FuzzHostileABICalls runs it open-ended.
func TestHostileABICalls(t *testing.T) {
	h := newHostileRuntime(t)
	n := 160
	if testing.Short() {
		n = 40
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	causes := map[string]int{}
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := uint64(w); seed < uint64(n); seed += 4 {
				c := checkHostileABICall(t, h, seed)
				mu.Lock()
				causes[c]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("outcomes: %v", causes)
	if causes["ok"] == 0 || causes["ErrTrap"] == 0 || causes["ErrPlugin"] == 0 {
		t.Fatalf("outcomes %v: the sequences should succeed, fault and fail", causes)
	}
	if strings.Contains(h.logged(), "panic") {
		t.Fatalf("the runtime logged a panic:\n%s", h.logged())
	}
	p, err := h.NewPlugin(mustCompile(t, h.Runtime, wasmbuild.EchoPlugin()), runtime.PluginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if out, err := p.Call(context.Background(), "echo", []byte("alive"), nil); err != nil || string(out) != "alive" {
		t.Fatalf("after the sequences: %q %v", out, err)
	}
}

func FuzzHostileABICalls(f *testing.F) {
	f.Add(uint64(1))
	h := newHostileRuntime(f)
	f.Fuzz(func(t *testing.T, seed uint64) { checkHostileABICall(t, h, seed) })
}

// Random sequences of WASI calls with arguments that overflow 32-bit
// products and bounds (wazero's poll_oneoff reads 2^28 subscriptions as
// none, then indexes past them), on a plugin granted a scratch directory:
// each call ends by its deadline with a result or a well-formed error,
// never a host failure. FuzzHostileWASICalls runs it open-ended.
func TestHostileWASICalls(t *testing.T) {
	h := newHostileRuntime(t)
	types := runtime.WASIFunctionTypes(h.Runtime)
	n := 120
	if testing.Short() {
		n = 30
	}
	causes := map[string]int{}
	for seed := range uint64(n) {
		causes[checkHostileWASICall(t, h, types, seed)]++
	}
	t.Logf("outcomes: %v", causes)
	if causes["ok"] == 0 || causes["ErrTrap"] == 0 {
		t.Fatalf("outcomes %v: the sequences should succeed and fault", causes)
	}
}

func checkHostileWASICall(t *testing.T, h *hostileRuntime, types map[string][2][]byte, seed uint64) string {
	wasm, trace := hostileCalls(seed, 1<<16, types)
	m, err := h.Compile(context.Background(), fmt.Sprintf("wasi-%d.wasm", seed), wasm)
	if err != nil {
		t.Fatalf("seed %d: a generated module does not load: %v", seed, err)
	}
	const timeout = 300 * time.Millisecond
	p, err := h.NewPlugin(m, runtime.PluginOptions{Name: fmt.Sprintf("wasi-%d", seed), Grants: runtime.Grants{
		MemoryPages: 4, Timeout: timeout, Dirs: []runtime.Dir{{Host: t.TempDir(), Guest: "/w", Write: true}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	start := time.Now()
	_, err = p.Call(context.Background(), "execute", nil, nil)
	if d := time.Since(start); d > stuckAfter(timeout) {
		t.Fatalf("seed %d (%s): the call took %v, for a timeout of %v: stuck past its deadline", seed, trace, d, timeout)
	}
	return hostileCause(t, seed, trace, err, "ErrHost")
}

func FuzzHostileWASICalls(f *testing.F) {
	f.Add(uint64(1))
	h := newHostileRuntime(f)
	types := runtime.WASIFunctionTypes(h.Runtime)
	f.Fuzz(func(t *testing.T, seed uint64) { checkHostileWASICall(t, h, types, seed) })
}
