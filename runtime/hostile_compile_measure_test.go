package runtime

import (
	"context"
	"fmt"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmagent/wasmagent/runtime/internal/fuel"
	"github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// TestMeasureShapes measures what compiling costs, for SECURITY.md:
// the fuel rewrite and wazero's compilation (one worker, no cache) of
// each generated shape, in CPU time of the compiling thread, beside the
// measure (compilecost.go). WASMAGENT_COMPILE_SHAPES says what:
//
//	cap                     every shape at the largest size the caps accept
//	ifs:1000,2000;brif:4000 the named shapes (wasmgen.Shapes) at these sizes
//	file:a.wasm,b.wasm      these modules
//
// go test ./runtime -run TestMeasureShapes -v -timeout 1h, with the
// variable set; the test only reports, it asserts nothing of the times.
func TestMeasureShapes(t *testing.T) {
	spec := os.Getenv("WASMAGENT_COMPILE_SHAPES")
	if spec == "" {
		t.Skip("set WASMAGENT_COMPILE_SHAPES (cap, shape:n1,n2;..., or file:a.wasm,...) to measure compile times")
	}
	if spec == "mix" {
		measureMixes(t)
		return
	}
	if spec == "cap" {
		var parts []string
		for _, s := range wasmgen.Shapes {
			parts = append(parts, fmt.Sprintf("%s:%d", s, lastAccepted(t, s)))
		}
		spec = strings.Join(parts, ";")
	}
	for _, part := range strings.Split(spec, ";") {
		name, ns, _ := strings.Cut(part, ":")
		for _, s := range strings.Split(ns, ",") {
			n, _ := strconv.Atoi(s)
			if name != "file" {
				measureCompile(t, name, n, wasmgen.Shape(name, n))
				continue
			}
			wasm, err := os.ReadFile(s)
			if err != nil {
				t.Fatal(err)
			}
			measureCompile(t, s, n, wasm)
		}
	}
}

func measureCompile(t *testing.T, name string, n int, wasm []byte) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	c0 := threadCPU()
	inst, rep, err := fuel.InstrumentReport(wasm, fuel.Options{})
	c1 := threadCPU()
	if err != nil {
		t.Fatal(name, n, err)
	}
	ctx := experimental.WithCompilationWorkers(context.Background(), 1)
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
	defer rt.Close(ctx)
	_, err = rt.CompileModule(ctx, inst)
	c2 := threadCPU()
	if err != nil {
		t.Fatal(name, n, err)
	}
	worst, _, total := moduleCost(rep.Costs)
	fmt.Printf("%-13s n=%-6d %8d bytes  rewrite %-8v compile %-8v cost %.3g (module %.3g) B=%d J=%d W=%d D=%d depths %d+%d+%d labels %d\n",
		name, n, len(wasm), (c1 - c0).Round(time.Millisecond), (c2 - c1).Round(time.Millisecond),
		float64(functionCost(worst)), float64(total), worst.Branches, worst.Joins, worst.Written, worst.LoopDepth, worst.BlockDepths, worst.ReadDepths, worst.EdgeDepths, worst.LabelDepths)
}

// measureMixes compiles random mixes (wasmgen.Mix) grown to the cap, of
// several local counts: the times at the cap should be no worse than the
// named shapes'.
func measureMixes(t *testing.T) {
	for seed := range uint64(24) {
		v := []int{2, 16, 128, 1024}[seed%4]
		lo, hi := 0, 256
		for hi < 1<<20 && costOf(t, wasmgen.Mix(seed, hi, v)) == nil {
			lo, hi = hi, hi*2
		}
		for hi-lo > max(1, lo/64) {
			mid := (lo + hi) / 2
			if costOf(t, wasmgen.Mix(seed, mid, v)) == nil {
				lo = mid
			} else {
				hi = mid
			}
		}
		measureCompile(t, fmt.Sprintf("mix%d/v%d", seed, v), lo, wasmgen.Mix(seed, lo, v))
	}
}
