package fuel

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// FuzzInstrument: Instrument never panics on any input, and never makes an
// invalid module valid: if the instrumented module compiles, the original
// compiles too.
func FuzzInstrument(f *testing.F) {
	for _, seed := range [][]byte{wasmgen.Index(), wasmgen.Tree(), wasmgen.GuardedTree(), countdown(), wasmbuild.EchoPlugin(), wasmbuild.DescribeOnly(`{"abi":1}`)} {
		f.Add(seed)
	}
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, oracleConfig(wazero.NewRuntimeConfigInterpreter()))
	f.Fuzz(func(t *testing.T, wasm []byte) {
		inst, err := Instrument(wasm, Options{})
		if err != nil {
			return
		}
		ci, err := r.CompileModule(ctx, inst)
		if err != nil {
			return
		}
		ci.Close(ctx)
		co, err := r.CompileModule(ctx, wasm)
		if err != nil {
			t.Fatalf("instrumenting made an invalid module valid: %v", err)
		}
		co.Close(ctx)
	})
}
