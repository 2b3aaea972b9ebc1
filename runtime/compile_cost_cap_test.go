package runtime

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/runtime/internal/fuel"
	"github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// costsOf is what the rewrite counts of wasm, and its costliest function's cost.
func costsOf(t *testing.T, wasm []byte) ([]fuel.FuncCost, int64) {
	t.Helper()
	_, rep, err := fuel.InstrumentReport(wasm, fuel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, worst, _ := moduleCost(rep.Costs)
	return rep.Costs, worst
}

func newCapped(t *testing.T, maxCost int64) *Runtime {
	t.Helper()
	r, err := New(context.Background(), Options{CacheDir: "off", MaxCompileCost: maxCost})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	return r
}

// A module the default cap refuses passes the check of a Runtime whose
// MaxCompileCost is raised to the value the refusal names, and not of
// one a unit below it. (The check is what Compile runs before wazero
// sees the module; compiling this one would take seconds, which is the
// point of the cap.)
func TestMaxCompileCostRaisesTheCap(t *testing.T) {
	const name = "brifLocals"
	wasm := wasmgen.Shape(name, 1000)
	_, cost := costsOf(t, wasm)
	if cost <= MaxFunctionCompileCost {
		t.Fatalf("%s of size 1000 costs %d, under the default cap: the test proves nothing", name, cost)
	}
	_, err := newCapped(t, 0).Compile(context.Background(), name, wasm)
	want := fmt.Sprintf("[runtime] max_compile_cost = %d", cost)
	if !errors.Is(err, ErrCompileCost) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "runtime.MaxFunctionCompileCost, the default") {
		t.Fatalf("at the default cap: %v, want ErrCompileCost naming the default and %q", err, want)
	}
	if _, _, _, err := newCapped(t, cost).rewrite(name, wasm); err != nil {
		t.Fatalf("MaxCompileCost %d (the module's cost): %v", cost, err)
	}
	_, _, _, err = newCapped(t, cost-1).rewrite(name, wasm)
	var ce *CompileCostError
	if !errors.As(err, &ce) || ce.Limit != cost-1 || ce.Cost != cost {
		t.Fatalf("MaxCompileCost %d: %v, want a *CompileCostError with that limit and cost %d", cost-1, err, cost)
	}
}

// A cap lowered below a plugin's cost refuses it before compiling, naming
// the Runtime's cap; the plugin loads (compiled, exports and all) under a
// cap equal to its cost.
func TestMaxCompileCostLowered(t *testing.T) {
	wasm := wasmgen.Shape("ifs", 300)
	_, cost := costsOf(t, wasm)
	if cost <= minCountedCost/10 {
		t.Fatalf("the module costs only %d", cost)
	}
	_, err := newCapped(t, cost/2).Compile(context.Background(), "ifs", wasm)
	var ce *CompileCostError
	if !errors.As(err, &ce) || ce.Limit != cost/2 || !strings.Contains(err.Error(), "runtime.Options.MaxCompileCost") || !strings.Contains(err.Error(), fmt.Sprintf("max_compile_cost = %d", cost)) {
		t.Fatalf("MaxCompileCost %d: %v, want a *CompileCostError naming the Runtime's cap and max_compile_cost = %d", cost/2, err, cost)
	}
	if _, err := newCapped(t, cost).Compile(context.Background(), "ifs", wasm); err != nil {
		t.Fatalf("MaxCompileCost %d (the module's cost): %v", cost, err)
	}
}

func TestMaxCompileCostNegative(t *testing.T) {
	r, err := New(context.Background(), Options{CacheDir: "off", MaxCompileCost: -1})
	if err == nil {
		r.Close(context.Background())
		t.Fatal("MaxCompileCost -1 was accepted")
	}
	if !strings.Contains(err.Error(), "MaxCompileCost") {
		t.Fatalf("%v does not name MaxCompileCost", err)
	}
}

// For modules of random costs under random caps, the value a refusal
// names admits the module and a unit less does not, whether the
// costliest function or the module's total is over; a cap near the
// largest int64 does not overflow into refusing everything.
func TestCompileCostRefusalNamesEnough(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	refused := map[bool]int{} // by "the module's total"
	for range 5000 {
		maxCost := minCountedCost + rng.Int64N(2*MaxFunctionCompileCost)
		over := 1 + rng.Int64N(2) // 2: some function may pass the cap
		costs := make([]fuel.FuncCost, 1+rng.IntN(40))
		for i := range costs {
			// functionCost is 2·BlockDepths here: from cheap (not counted
			// in the total) to over the cap.
			costs[i] = fuel.FuncCost{Func: uint32(i), BlockDepths: rng.Int64N(over * maxCost / 2)}
		}
		var ce *CompileCostError
		if err := checkCompileCost(costs, maxCost); err == nil {
			continue
		} else if !errors.As(err, &ce) {
			t.Fatalf("%v is no *CompileCostError", err)
		}
		refused[ce.Func < 0]++
		enough := ce.Enough()
		if !strings.Contains(ce.Error(), fmt.Sprintf("max_compile_cost = %d", enough)) {
			t.Fatalf("%q does not name %d", ce, enough)
		}
		if err := checkCompileCost(costs, enough); err != nil {
			t.Fatalf("under the cap the refusal names, %d: %v", enough, err)
		}
		if err := checkCompileCost(costs, enough-1); err == nil {
			t.Fatalf("a unit under the cap the refusal names, %d, admits the module: it is not the least", enough-1)
		}
	}
	if refused[false] == 0 || refused[true] == 0 {
		t.Fatalf("refused for a function %d times, for the total %d: both must be tried", refused[false], refused[true])
	}
	if err := checkCompileCost([]fuel.FuncCost{{BlockDepths: 1 << 40}, {BlockDepths: 1 << 40}}, 1<<62); err != nil {
		t.Fatalf("a cap of 2^62: %v", err)
	}
}
