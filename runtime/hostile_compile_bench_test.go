package runtime

import (
	"context"
	"os"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime/internal/fuel"
	"github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// BenchmarkCompileAtCap compiles, with one worker and no cache, the
// costliest shape known at the largest size the caps accept, beside a
// standard-Go plugin (SDK and go-pdk) and the shape one step over the
// cap, which Compile refuses before compiling:
//
//	go test ./runtime -run '^$' -bench CompileAtCap -benchtime 3x -count 3
func BenchmarkCompileAtCap(b *testing.B) {
	probe, err := os.ReadFile(wasmbuild.ForTest(b, "internal/testplugins/probe"))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		wasm []byte
	}{
		{"go-plugin", probe},
		{costliestShape + "-at-cap", wasmgen.Shape(costliestShape, lastAccepted(b, costliestShape))},
	} {
		inst, err := fuel.Instrument(bc.wasm, fuel.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			ctx := experimental.WithCompilationWorkers(context.Background(), 1)
			for b.Loop() {
				rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
				if _, err := rt.CompileModule(ctx, inst); err != nil {
					b.Fatal(err)
				}
				rt.Close(ctx)
			}
		})
	}
	b.Run(costliestShape+"-over-cap-refused", func(b *testing.B) {
		r, err := New(context.Background(), Options{CacheDir: "off"})
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close(context.Background())
		over := wasmgen.Shape(costliestShape, lastAccepted(b, costliestShape)+1)
		for b.Loop() {
			if _, err := r.Compile(context.Background(), "over", over); err == nil {
				b.Fatal("compiled")
			}
		}
	})
}

// costliestShape is the shape that takes longest to compile at its cap
// (TestMeasureShapes with WASMAGENT_COMPILE_SHAPES=cap).
const costliestShape = "brifLocals"
