package runtime

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime/internal/fuel"
	"github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// maxShapeN and maxShapeBytes bound the sizes the shape search tries:
// every shape left under the caps there is linear in its size
// (TestMeasureShapes).
const (
	maxShapeN     = 1 << 16
	maxShapeBytes = 1600 << 10
)

// raceShapes are the shapes swept under the race detector, which makes
// the rewrite some ten times slower and adds nothing to a deterministic
// measure: the smallest modules at their caps, of three different terms.
var raceShapes = []string{"brifLocals", "loops", "brif", "locals", "looplocals"}

// costOf is the rewrite's verdict on wasm: nil, or the
// *CompileCostError it refuses wasm with.
func costOf(t testing.TB, wasm []byte) *CompileCostError {
	t.Helper()
	_, rep, err := fuel.InstrumentReport(wasm, fuel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ce *CompileCostError
	if err := checkCompileCost(rep.Costs, MaxFunctionCompileCost); err != nil && !errors.As(err, &ce) {
		t.Fatalf("checkCompileCost: %v is no *CompileCostError", err)
	}
	return ce
}

// lastAccepted is the largest n ≤ maxShapeN at which shape is accepted
// (0: none), found by doubling and then bisecting: the verdict is
// monotonic in n, which the test checks at the boundary it finds.
// bounded is false when no size the search tried was refused.
func lastAccepted(t testing.TB, shape string) int {
	n, _ := acceptedUpTo(t, shape)
	return n
}

func acceptedUpTo(t testing.TB, shape string) (n int, bounded bool) {
	lo, hi := 0, 64 // lo accepted (0: trivially), hi to be tried
	for {
		if hi > maxShapeN {
			return lo, false
		}
		wasm := wasmgen.Shape(shape, hi)
		if len(wasm) > maxShapeBytes {
			return lo, false
		}
		if costOf(t, wasm) != nil {
			break
		}
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 { // lo accepted, hi refused
		mid := (lo + hi) / 2
		if costOf(t, wasmgen.Shape(shape, mid)) == nil {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, true
}

// TestCompileCostBoundsEveryShape generates every costly shape
// (wasmgen.Shapes) at the largest size the caps accept and one step
// over: the first is accepted by the rewrite, the second refused by
// Compile before wazero compiles anything, with an error naming the
// function, its cost and the cap. (That the accepted sizes compile in a
// few seconds is measured, not asserted: TestMeasureShapes with
// WASMAGENT_COMPILE_SHAPES=cap, and BenchmarkCompileAtCap.)
func TestCompileCostBoundsEveryShape(t *testing.T) {
	r, err := New(context.Background(), Options{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background())
	refusedSomewhere := 0
	sweep := wasmgen.Shapes
	if raceEnabled {
		sweep = raceShapes
		t.Logf("under the race detector: %v only", sweep)
	}
	for _, shape := range sweep {
		t.Run(shape, func(t *testing.T) {
			n, bounded := acceptedUpTo(t, shape)
			if n == 0 {
				t.Fatalf("%s of size 1 is refused", shape)
			}
			if _, _, _, err := r.rewrite(shape, wasmgen.Shape(shape, n)); err != nil {
				t.Fatalf("%s of size %d: the rewrite refuses it: %v", shape, n, err)
			}
			if !bounded {
				t.Logf("%s: accepted up to %d (%d bytes): linear in its size", shape, n, len(wasmgen.Shape(shape, n)))
				return
			}
			refusedSomewhere++
			over := wasmgen.Shape(shape, n+1)
			_, err := r.Compile(context.Background(), shape, over)
			var ce *CompileCostError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCompileCost) {
				t.Fatalf("%s of size %d: Compile gave %v, want a *CompileCostError", shape, n+1, err)
			}
			if ce.Cost <= ce.Limit || ce.Func > 0 {
				t.Fatalf("%s of size %d: %+v: the cost is not over the limit, or the function is not f (0) or the module (-1)", shape, n+1, ce)
			}
			for _, want := range []string{shape + ": ", "runtime.Max", "branch edges", "locals written"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error %q does not say %q", err, want)
				}
			}
			t.Logf("%s: accepted up to %d (%d bytes), refused from %d", shape, n, len(wasmgen.Shape(shape, n)), n+1)
		})
	}
	if refusedSomewhere == 0 {
		t.Fatal("no shape reached a cap: the search tried nothing costly")
	}
}

// TestRealPluginsFarBelowCompileCost: real plugins' costliest functions
// are far under MaxFunctionCompileCost (a tenth at most), and their sum
// under MaxModuleCompileCost: standard-Go plugins with go-pdk and the SDK,
// the bare go-pdk one, an AssemblyScript one and a hand-written WAT one
// (these two when node is on PATH).
func TestRealPluginsFarBelowCompileCost(t *testing.T) {
	goPlugin := func(pkg string) func() (string, error) {
		return func() (string, error) { return wasmbuild.Cached(pkg) }
	}
	plugins := []struct {
		name string
		path func() (string, error)
	}{
		{"go probe (SDK)", goPlugin("internal/testplugins/probe")},
		{"assemblyscript text", func() (string, error) { return wasmbuild.ASCached("plugins/text") }},
		{"wat", func() (string, error) { return wasmbuild.WATCached("internal/testplugins/wat") }},
		{"go raw (go-pdk only)", goPlugin("internal/testplugins/raw")},
		{"go calc (SDK)", goPlugin("plugins/calc")},
	}
	if raceEnabled {
		plugins = plugins[:3] // the rewrite is ten times slower
	}
	for _, p := range plugins {
		path, err := p.path()
		if errors.Is(err, wasmbuild.ErrNoNode) {
			t.Logf("%s: skipped: %v", p.name, err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		wasm, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, rep, err := fuel.InstrumentReport(wasm, fuel.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, worst, total := moduleCost(rep.Costs)
		if worst > MaxFunctionCompileCost/10 || total > MaxModuleCompileCost/10 {
			t.Errorf("%s: costliest function %d, all %d: too close to the caps (%d, %d)", p.name, worst, total, int64(MaxFunctionCompileCost), int64(MaxModuleCompileCost))
		}
		t.Logf("%s: %d functions, costliest %.3g, total %.3g", p.name, len(rep.Costs), float64(worst), float64(total))
	}
}

// Declared locals are counted, in every function: each is code the
// compiler writes to zero it at entry. On the old main, 1,000 functions
// of 10 bytes each declaring 50,000 locals, each far under the cost that
// made a function count in the module's total, were accepted, and took
// 11 s to compile into 400 MB of machine code.
func TestDeclaredLocalsAreCounted(t *testing.T) {
	r, err := New(context.Background(), Options{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background())
	_, err = r.Compile(context.Background(), "declared.wasm", wasmgen.Shape("declared", 1000))
	var ce *CompileCostError
	if !errors.As(err, &ce) || ce.Func != -1 || ce.Locals != 49998 || !strings.Contains(err.Error(), "49998 locals declared") {
		t.Fatalf("Compile gave %v, want the module's total over the cap, naming 49998 locals declared", err)
	}
}

// The values a branch carries to its label are counted: each is a phi
// argument, as a local written is. On the old main, 4,000 br_ifs back to
// a loop of 1,000 parameters (a 21 KB module) were accepted and took
// 8.4 s of CPU to compile.
func TestBranchArgumentsAreCounted(t *testing.T) {
	r, err := New(context.Background(), Options{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background())
	_, err = r.Compile(context.Background(), "brifargs.wasm", wasmgen.Shape("brifArgs", 4000))
	var ce *CompileCostError
	if !errors.As(err, &ce) || ce.Func != 0 || ce.EdgeArgs < 4000*1000 || !strings.Contains(err.Error(), "values carried by branches 4") {
		t.Fatalf("Compile gave %v, want function 0 over the cap, naming the values its branches carry", err)
	}
}

// A call's parameters and results are counted: each is moved to or from
// its place. On the old main, 4,000 calls in a row of a function taking
// and giving 1,000 values (a 16 KB module) were accepted and took 30 s of
// CPU to compile.
func TestCallArgumentsAreCounted(t *testing.T) {
	r, err := New(context.Background(), Options{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background())
	_, err = r.Compile(context.Background(), "callargs.wasm", wasmgen.Shape("callArgs", 4000))
	var ce *CompileCostError
	if !errors.As(err, &ce) || ce.Func != 0 || ce.CallArgs != 4000*2000 || !strings.Contains(err.Error(), "by calls 8000000") {
		t.Fatalf("Compile gave %v, want function 0 over the cap, naming the values its calls carry", err)
	}
}
