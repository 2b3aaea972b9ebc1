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
	rng := rand.New(rand.NewPCG(seed, 99))
	types := runtime.HostFunctionTypes()
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
	arg := func(t byte) []byte {
		if t == wasmbuild.I32 {
			return i32c([]int64{0, 1, 255, -1}[rng.IntN(4)])
		}
		switch rng.IntN(6) {
		case 0, 1, 2:
			return lget(0) // the last offset
		case 3:
			return ops(lget(0), i64c(int64(rng.IntN(16))-4), []byte{0x7c}) // next to it
		}
		return i64c(i64s[rng.IntN(len(i64s))])
	}
	var body []byte
	var trace []string
	for range 1 + rng.IntN(24) {
		f := rng.IntN(len(names))
		if names[f] == "extism:host/env.alloc" || rng.IntN(4) == 0 {
			// Allocate often, in sizes that matter: so that offsets are live.
			f = slices.Index(names, "extism:host/env.alloc")
			body = append(body, i64c([]int64{1, 8, 100, limit / 2, limit}[rng.IntN(5)])...)
		} else {
			for _, t := range types[names[f]][0] {
				body = append(body, arg(t)...)
			}
		}
		body = append(body, call(uint32(f))...)
		switch r := types[names[f]][1]; {
		case len(r) == 1 && r[0] == wasmbuild.I64:
			body = append(body, lset(0)...)
		case len(r) == 1:
			body = append(body, opDrop...)
		}
		trace = append(trace, names[f][strings.LastIndex(names[f], ".")+1:])
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
// ("ok" for a result).
func checkHostileABICall(t *testing.T, h *hostileRuntime, seed uint64) string {
	const pages = 4
	wasm, trace := hostileABICalls(seed, pages<<16)
	m, err := h.Compile(context.Background(), fmt.Sprintf("abi-%d.wasm", seed), wasm)
	if err != nil {
		t.Fatalf("seed %d: a generated module does not load: %v", seed, err)
	}
	p, err := h.NewPlugin(m, runtime.PluginOptions{Name: fmt.Sprintf("abi-%d", seed), Grants: runtime.Grants{
		MemoryPages: pages, Timeout: 2 * time.Second, Config: map[string]string{"k": "v"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Call(context.Background(), "execute", []byte("input"), &runtime.CallOptions{OnUpdate: func([]byte) error { return nil }})
	if err == nil {
		return "ok"
	}
	var ce *runtime.CallError
	if !errors.As(err, &ce) {
		t.Fatalf("seed %d (%s): %v (%T) is not a *CallError", seed, trace, err, err)
	}
	c := causeOf(t, err)
	if c == "ErrHost" || c == "ErrTimeout" {
		t.Fatalf("seed %d (%s): %s: %v", seed, trace, c, err)
	}
	return c
}

// Random sequences of Extism and wasmagent host-function calls with wild
// arguments, 4 at a time: each call ends promptly with a result or a
// well-formed error naming its cause, never a host failure, and the
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
