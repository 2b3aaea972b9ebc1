package fuel

import (
	"context"
	"errors"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"
)

// errDepth is what exceeded panics with in these tests.
var errDepth = errors.New("call depth limit exceeded")

// tick is the host's wasmagent.tick (runtime/hostfuncs.go), repeated here
// so the package is tested on wazero alone.
func tick(ctx context.Context, mod api.Module, stack []uint64) {
	if err := ctx.Err(); err != nil {
		code := sys.ExitCodeContextCanceled
		if errors.Is(err, context.DeadlineExceeded) {
			code = sys.ExitCodeDeadlineExceeded
		}
		mod.CloseWithExitCode(context.Background(), code)
		panic(sys.NewExitError(code))
	}
	stack[0] = Budget
}

// hostRuntime is a wazero runtime with env.add3, env.host (i32) -> i32
// and the functions the rewrite imports. interp selects the interpreter
// (faster to compile many small generated modules).
func hostRuntime(t testing.TB, ctx context.Context, interp bool) wazero.Runtime {
	t.Helper()
	cfg := wazero.NewRuntimeConfigCompiler()
	if interp {
		cfg = wazero.NewRuntimeConfigInterpreter()
	}
	cfg = oracleConfig(cfg).WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesTailCall)
	r := wazero.NewRuntimeWithConfig(ctx, cfg)
	t.Cleanup(func() { r.Close(ctx) })
	i64 := []api.ValueType{api.ValueTypeI64}
	for _, err := range []error{
		instantiate(ctx, r.NewHostModuleBuilder("env").
			NewFunctionBuilder().WithFunc(func(x int32) int32 { return x + 3 }).Export("add3").
			NewFunctionBuilder().WithFunc(func(x int32) int32 { return x*7 + 1 }).Export("host")),
		instantiate(ctx, r.NewHostModuleBuilder(TickModule).NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(tick), nil, i64).Export(TickName)),
		instantiate(ctx, r.NewHostModuleBuilder(DepthModule).NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(context.Context, api.Module, []uint64) { panic(errDepth) }), nil, i64).Export(DepthName)),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// oracleConfig makes wazero a validator of the spec's rules: with debug
// information on, it reads custom sections and refuses one with no
// content at the very end of a module (an EOF), which the spec allows;
// since the rewrite drops such sections, that quirk would read as
// laundering.
func oracleConfig(cfg wazero.RuntimeConfig) wazero.RuntimeConfig {
	return cfg.WithDebugInfoEnabled(false).WithCustomSections(false)
}

func instantiate(ctx context.Context, b wazero.HostModuleBuilder) error {
	_, err := b.Instantiate(ctx)
	return err
}

// instantiateRaw instantiates wasm (instrumented or not) without running
// its start function.
func instantiateRaw(t testing.TB, ctx context.Context, r wazero.Runtime, wasm []byte) api.Module {
	t.Helper()
	m, err := r.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustInstrument(t testing.TB, wasm []byte, opts Options) []byte {
	t.Helper()
	inst, err := Instrument(wasm, opts)
	if err != nil {
		t.Fatal(err)
	}
	return inst
}
