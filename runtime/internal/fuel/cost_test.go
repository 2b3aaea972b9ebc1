package fuel

import (
	"reflect"
	"testing"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// The rewrite reports one FuncCost per defined function, in order, the
// same on every run, and none with a negative count, on generated
// modules of every control-flow piece Gen makes (br_table, dead code
// after br and unreachable, else, loops, calls).
func TestCostsCoverEveryFunction(t *testing.T) {
	for seed := range uint64(60) {
		g := wasmgen.Gen(seed, seed%2 == 0, false)
		_, rep, err := InstrumentReport(g.Wasm, Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		_, again, _ := InstrumentReport(g.Wasm, Options{})
		if !reflect.DeepEqual(rep.Costs, again.Costs) {
			t.Fatalf("seed %d: two rewrites measured differently", seed)
		}
		if len(rep.Costs) == 0 {
			t.Fatalf("seed %d: no costs", seed)
		}
		for i, c := range rep.Costs {
			if i > 0 && c.Func != rep.Costs[i-1].Func+1 {
				t.Fatalf("seed %d: function %d follows %d", seed, c.Func, rep.Costs[i-1].Func)
			}
			if c.Branches < 0 || c.Joins < 0 || c.Written < 0 || c.LoopDepth < 0 || c.BlockDepths < 0 || c.ReadDepths < 0 || c.EdgeDepths < 0 || c.LabelDepths < 0 {
				t.Fatalf("seed %d: %+v", seed, c)
			}
		}
	}
}

// What the walk counts on shapes whose dominator trees are known: a run
// of n sequential ifs is a chain n deep (depths sum to about n²), a
// br_table fan-out is flat, straight code has no blocks at all.
func TestCostFollowsTheDominatorTree(t *testing.T) {
	cost := func(shape string, n int) FuncCost {
		t.Helper()
		_, rep, err := InstrumentReport(wasmgen.Shape(shape, n), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return rep.Costs[0]
	}
	for _, shape := range []string{"ifs", "brif", "nestedIfs", "loops"} {
		a, b := cost(shape, 500), cost(shape, 1000)
		if a.BlockDepths < 500*500/2 || b.BlockDepths < 7*a.BlockDepths/2 {
			t.Errorf("%s: block depths %d at 500, %d at 1000: not quadratic", shape, a.BlockDepths, b.BlockDepths)
		}
	}
	if c := cost("brtable", 1000); c.BlockDepths > 4*1000 || c.EdgeDepths > 4*1000 || c.LabelDepths < 1000*999/2 {
		t.Errorf("brtable: %+v: the fan-out is not flat, or its labels are not counted", c)
	}
	if c := cost("straight", 1000); c.BlockDepths != 0 || c.Branches != 0 || c.Written != 1 {
		t.Errorf("straight: %+v", c)
	}
	if c := cost("locals", 100); c.Written != 101 {
		t.Errorf("locals: %d written, want 101", c.Written)
	}
}
