package fuel

import (
	"context"
	"testing"
	"time"

	"github.com/tetratelabs/wazero/api"

	. "github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// fibModule exports "fib" (i32) -> i32, recursive: the worst case for the
// depth count (a call per handful of instructions, no loop).
func fibModule() []byte {
	types := Sec(1, Vec(1, []byte{0x60, 1, I32, 1, I32}))
	funcs := Sec(3, Vec(1, U(0)))
	exports := Sec(7, Vec(1, Str("fib"), []byte{0x00}, U(0)))
	fib := Body(U(0),
		0x20, 0x00, 0x41, 0x02, 0x48, 0x04, 0x40, 0x20, 0x00, 0x0f, 0x0b, // if n < 2 { return n }
		0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00, // fib(n-1)
		0x20, 0x00, 0x41, 0x02, 0x6b, 0x10, 0x00, 0x6a) // + fib(n-2)
	return Module(types, funcs, exports, Sec(10, Vec(1, fib)))
}

// The cost of the checks on recursive WAT fib(25), side by side in each
// iteration: uninstrumented, fuel alone, fuel and the depth limit.
//
//	go test ./runtime/internal/fuel -run '^$' -bench Recursion -count 3
func BenchmarkRecursion(b *testing.B) {
	ctx := context.Background()
	r := hostRuntime(b, ctx, false)
	wasm := fibModule()
	fns := []api.Function{
		instantiateRaw(b, ctx, r, wasm).ExportedFunction("fib"),
		instantiateRaw(b, ctx, r, mustInstrument(b, wasm, Options{NoCallDepth: true})).ExportedFunction("fib"),
		instantiateRaw(b, ctx, r, mustInstrument(b, wasm, Options{})).ExportedFunction("fib"),
	}
	spent := make([]time.Duration, len(fns))
	for b.Loop() {
		for i, f := range fns {
			start := time.Now()
			res, err := f.Call(ctx, 25)
			if err != nil || res[0] != 75025 {
				b.Fatal(res, err)
			}
			spent[i] += time.Since(start)
		}
	}
	b.ReportMetric(spent[1].Seconds()/spent[0].Seconds(), "fuel-nodepth/none")
	b.ReportMetric(spent[2].Seconds()/spent[0].Seconds(), "fuel/none")
}
