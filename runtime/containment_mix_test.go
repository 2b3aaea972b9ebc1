package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// mixModule is a module whose export "mix" loops forever over a random
// sequence of host calls and guest work, drawn from rng: allocations of
// random sizes (freed or not), log lines, updates, random bytes, variable
// writes, stores into host memory, arithmetic and inner loops.
func mixModule(rng *rand.Rand) ([]byte, string) {
	const (
		fAlloc = iota
		fFree
		fLogInfo
		fEmitUpdate
		fVarSet
		fRandomGet
		fStoreU8
	)
	I32, I64 := wasmbuild.I32, wasmbuild.I64
	env := func(name string, params, results []byte) wasmbuild.Import {
		return wasmbuild.Import{Module: "extism:host/env", Name: name, Func: wasmbuild.Func{Params: params, Results: results}}
	}
	size := func() int64 { return 1 << rng.IntN(24) } // 1 B to 8 MiB
	var body [][]byte
	var recipe string
	for range 1 + rng.IntN(6) {
		switch k := rng.IntN(8); k {
		case 0:
			n := size()
			body = append(body, i64c(n), call(fAlloc), lset(0), lget(0), call(fFree))
			recipe += fmt.Sprintf(" alloc+free(%d)", n)
		case 1:
			n := min(size(), 4096)
			body = append(body, i64c(n), call(fAlloc), call(fLogInfo))
			recipe += fmt.Sprintf(" log(%d)", n)
		case 2:
			n := size()
			body = append(body, i64c(n), call(fAlloc), call(fEmitUpdate))
			recipe += fmt.Sprintf(" update(%d)", n)
		case 3:
			n := size()
			body = append(body, i32c(0), i32c(n), call(fRandomGet), opDrop)
			recipe += fmt.Sprintf(" random(%d)", n)
		case 4:
			n := min(size(), 1<<20)
			body = append(body, i64c(1), call(fAlloc), i64c(n), call(fAlloc), call(fVarSet))
			recipe += fmt.Sprintf(" var(%d)", n)
		case 5:
			body = append(body, i64c(16), call(fAlloc), lset(0), lget(0), i32c(7), call(fStoreU8), lget(0), call(fFree))
			recipe += " store"
		case 6:
			n := int64(1 + rng.IntN(100000))
			// An inner counted loop: local 1 from 0 to n.
			body = append(body, i64c(0), lset(1),
				[]byte{0x02, 0x40, 0x03, 0x40}, lget(1), i64c(n), []byte{0x5a, 0x0d, 0x01},
				lget(1), i64c(1), []byte{0x7c}, lset(1), []byte{0x0c, 0x00, 0x0b, 0x0b})
			recipe += fmt.Sprintf(" loop(%d)", n)
		default:
			body = append(body, i64c(int64(rng.Uint32())), i64c(3), []byte{0x7e}, lset(1)) // i64.mul
			recipe += " mul"
		}
	}
	m := wasmbuild.Module{
		Imports: []wasmbuild.Import{
			env("alloc", []byte{I64}, []byte{I64}),
			env("free", []byte{I64}, nil),
			env("log_info", []byte{I64}, nil),
			{Module: "extism:host/user", Name: "emit_update", Func: wasmbuild.Func{Params: []byte{I64}}},
			env("var_set", []byte{I64, I64}, nil),
			{Module: "wasi_snapshot_preview1", Name: "random_get", Func: wasmbuild.Func{Params: []byte{I32, I32}, Results: []byte{I32}}},
			env("store_u8", []byte{I64, I32}, nil),
		},
		Funcs:       []wasmbuild.Func{{Results: []byte{I32}, Locals: []byte{I64, I64}, Body: ops(forever(body...), i32c(0))}},
		Exports:     map[string]uint32{"mix": 7},
		MemoryPages: 129, // 8 MiB for random_get, and one more page
	}
	return m.Encode(), recipe
}

// Generated mixes of host calls and guest work, in a loop that never
// ends, each stop at their deadline: the promise of SECURITY.md row 12
// for whatever mix a guest runs, not only the kinds tested one by one.
func TestDeadlineHoldsForGeneratedMixes(t *testing.T) {
	const timeout = 100 * time.Millisecond
	for seed := range uint64(16) {
		wasm, recipe := mixModule(rand.New(rand.NewPCG(seed, 11)))
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			p := pluginOf(t, "mix.wasm", wasm, runtime.PluginOptions{Grants: uncapped(timeout)})
			start := time.Now()
			_, err := p.Call(context.Background(), "mix", nil, &runtime.CallOptions{OnUpdate: func([]byte) error { return nil }})
			took := time.Since(start)
			if !errors.Is(err, runtime.ErrTimeout) {
				t.Fatalf("%s: err = %v, want ErrTimeout", recipe, err)
			}
			if took > stuckAfter(timeout) { // a safety bound; BenchmarkDeadlineOvershoot measures
				t.Fatalf("%s: the call took %v with a timeout of %v", recipe, took, timeout)
			}
			t.Logf("%s: %v past the deadline", recipe, (took - timeout).Round(time.Millisecond))
		})
	}
}
