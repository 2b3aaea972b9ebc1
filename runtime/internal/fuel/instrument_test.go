package fuel

import (
	"context"
	"errors"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	. "github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

func TestInstrumentedOutputsAreIdentical(t *testing.T) {
	ctx := context.Background()
	orig := Index()
	inst := mustInstrument(t, orig, Options{})
	results := func(wasm []byte) []uint64 {
		m := instantiateRaw(t, ctx, hostRuntime(t, ctx, false), wasm)
		var out []uint64
		for _, c := range []struct {
			name string
			args []uint64
		}{{"double", []uint64{21}}, {"viaCall", []uint64{4}}, {"viaTable", []uint64{6}}, {"viaRef", nil}} {
			res, err := m.ExportedFunction(c.name).Call(ctx, c.args...)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			out = append(out, res...)
		}
		return out
	}
	want, got := results(orig), results(inst)
	if len(want) != 4 || want[0] != 42 || want[1] != 14 || want[2] != 12 || want[3] != 10 {
		t.Fatalf("uninstrumented results %v", want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("result %d: instrumented %d, original %d", i, got[i], want[i])
		}
	}
	// The start function runs at instantiation: the global it sets is the
	// same either way.
	for _, wasm := range [][]byte{orig, inst} {
		m, err := hostRuntime(t, ctx, false).Instantiate(ctx, wasm)
		if err != nil {
			t.Fatal(err)
		}
		if g := m.ExportedGlobal("g").Get(); g != 7 {
			t.Fatalf("start function: g = %d", g)
		}
	}
	// Names follow their functions.
	c, err := wazero.NewRuntime(ctx).CompileModule(ctx, inst)
	if err != nil {
		t.Fatal(err)
	}
	for name, def := range c.ExportedFunctions() {
		if !strings.HasSuffix(def.DebugName(), "."+name) {
			t.Errorf("export %s is named %s", name, def.DebugName())
		}
	}
}

// Plugins built by the Go toolchain and the assembler compile
// instrumented; runtime's TestSameOutputsAsExtism checks their outputs
// against go-sdk, which runs them uninstrumented.
func TestInstrumentedGoPlugins(t *testing.T) {
	ctx := context.Background()
	for _, wasm := range [][]byte{wasmbuild.EchoPlugin(), wasmbuild.DescribeOnly(`{"abi":1}`)} {
		inst := mustInstrument(t, wasm, Options{})
		if _, err := wazero.NewRuntime(ctx).CompileModule(ctx, inst); err != nil {
			t.Fatalf("instrumented module does not compile: %v", err)
		}
	}
}

// Invalid modules stay invalid: an index that would name what the rewrite
// adds is refused before rewriting, in every index space it extends.
func TestInvalidModulesStayInvalid(t *testing.T) {
	typ := Sec(1, Vec(1, []byte{0x60, 0, 1, I32}))
	fn := Sec(3, Vec(1, U(0)))
	exp := Sec(7, Vec(1, Str("f"), []byte{0x00}, U(0)))
	glob := Sec(6, Vec(1, []byte{0x7e, 0x01, 0x42, 0x00, 0x0b}))
	ret0 := Sec(10, Vec(1, Body(U(0), 0x41, 0x00)))
	cases := map[string][]byte{
		// global.set 1: with one global, 1 would be the budget.
		"global index": Module(typ, fn, glob, exp, Sec(10, Vec(1, Body(U(0), 0x42, 0x00, 0x24, 0x01, 0x41, 0x00)))),
		// an export of global 1, which would be the budget
		"exported global": Module(typ, fn, glob, Sec(7, Vec(1, Str("g"), []byte{0x03}, U(1))), ret0),
		// an export of global 0 with no globals
		"exported global, none": Module(typ, fn, Sec(7, Vec(1, Str("g"), []byte{0x03}, U(0))), ret0),
		// call 1: one function, 1 would be the first after the new import.
		"function index": Module(typ, fn, exp, Sec(10, Vec(1, Body(U(0), 0x10, 0x01, 0x41, 0x00)))),
		// local.get 0 with no locals: 0 would be the scratch local.
		"local index": Module(typ, fn, exp, Sec(10, Vec(1, Body(U(0), 0x20, 0x00)))),
		// call_indirect type 1: one type, 1 would be the tick type.
		"type index": Module(typ, fn, Sec(4, Vec(1, []byte{0x70, 0x00, 0x01})), exp, Sec(10, Vec(1, Body(U(0), 0x41, 0x00, 0x11, 0x01, 0x00)))),
		// an imported function of type 1: 1 would be the tick type.
		"import type index": Module(typ, Sec(2, Vec(1, Str("env"), Str("f"), []byte{0x00}, U(1)))),
		// a block of type 1
		"block type index": Module(typ, fn, exp, Sec(10, Vec(1, Body(U(0), 0x02, 0x01, 0x0b, 0x41, 0x00)))),
		// an export of function 1
		"export index": Module(typ, fn, Sec(7, Vec(1, Str("f"), []byte{0x00}, U(1))), ret0),
		// bytes after the import entries: once the count grows by two,
		// they would read as an import (found by FuzzInstrument)
		"trailing import bytes": Module(Sec(2, append([]byte{0x00, '8'}, strings.Repeat("0", 46)...))),
		"trailing type bytes":   Module(Sec(1, []byte{0x00, 0x60, 0x00, 0x00})),
		// the type section after the function section
		"section order": Module(fn, typ, ret0),
		// a 32-bit integer with unused bits set
		"malformed integer": Module(typ, fn, exp, Sec(10, Vec(1, Body(U(0), 0x41, 0x80, 0x80, 0x80, 0x80, 0x70)))),
		"reserved import":   Module(typ, Sec(2, Vec(1, Str("wasmagent"), Str("tick"), []byte{0x00}, U(0)))),
		"reserved depth":    Module(typ, Sec(2, Vec(1, Str("wasmagent:depth"), Str("exceeded"), []byte{0x00}, U(0)))),
		"unknown opcode":    Module(typ, fn, exp, Sec(10, Vec(1, Body(U(0), 0x06, 0x40, 0x0b, 0x41, 0x00)))),
	}
	ctx := context.Background()
	for name, wasm := range cases {
		t.Run(name, func(t *testing.T) {
			valid := true
			if _, err := wazero.NewRuntime(ctx).CompileModule(ctx, wasm); err != nil {
				valid = false
			}
			if valid != strings.HasPrefix(name, "reserved") {
				t.Errorf("the test module is valid: %v", valid)
			}
			inst, err := Instrument(wasm, Options{})
			if err == nil {
				if _, err := wazero.NewRuntime(ctx).CompileModule(ctx, inst); err == nil {
					t.Errorf("the instrumented module is valid")
				}
			}
		})
	}
}

// A loop-free call tree, the same tree behind loops that never run, and
// an infinite loop are each stopped at their deadline, and the host keeps
// running meanwhile: a goroutine that allocates and collects garbage
// keeps beating while the guest runs (without fuel, the GC's
// stop-the-world would wait on the guest and freeze every goroutine).
// The beats are not counted against a clock (a loaded machine may give
// the process no time for a while): the beating goroutine itself aborts
// the call after its third forced GC, which it can reach only if each GC
// completed while the guest ran, and the call must end by that abort,
// not by the minute's deadline it was given.
func TestStopsWhileHostBeats(t *testing.T) {
	for _, c := range []struct {
		name   string
		wasm   []byte
		export string
	}{{"call tree", Tree(), "tree"}, {"call tree behind loops that never run", GuardedTree(), "tree"}, {"infinite loop", Spin(), "spin"}} {
		t.Run(c.name, func(t *testing.T) {
			var exit *sys.ExitError
			_, _, err := runWhileHostBeats(t, c.wasm, c.export, 200*time.Millisecond, 0)
			if !errors.As(err, &exit) || exit.ExitCode() != sys.ExitCodeDeadlineExceeded {
				t.Fatalf("err = %v, want a deadline exit", err)
			}
			took, beats, err := runWhileHostBeats(t, c.wasm, c.export, time.Minute, 3)
			if !errors.As(err, &exit) || exit.ExitCode() != sys.ExitCodeContextCanceled {
				t.Fatalf("after %v and %d beats: err = %v, want the abort of the third beat (the host froze while the guest ran)", took, beats, err)
			}
			t.Logf("the host goroutine beat %d times and aborted the call after %v", beats, took)
		})
	}
}

// runWhileHostBeats instruments wasm, calls export with a deadline, and
// counts the beats of a host goroutine that allocates and forces a GC
// every 10 ms meanwhile; after abortAfter beats (0: never) that goroutine
// cancels the call.
func runWhileHostBeats(t testing.TB, wasm []byte, export string, deadline time.Duration, abortAfter int32, args ...uint64) (time.Duration, int32, error) {
	ctx := context.Background()
	m := instantiateRaw(t, ctx, hostRuntime(t, ctx, false), mustInstrument(t, wasm, Options{}))
	cctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	var beats atomic.Int32
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
				_ = make([]byte, 1<<20)
				goruntime.GC()
				if beats.Add(1) == abortAfter {
					cancel()
				}
			}
		}
	}()
	start := time.Now()
	_, err := m.ExportedFunction(export).Call(cctx, args...)
	took := time.Since(start)
	close(stop)
	<-done
	return took, beats.Load(), err
}

// Runaway recursion ends at the depth limit with its own error, in
// milliseconds; a recursion just under the limit runs, and the depth is
// back to zero after every call (no call leaks a level).
func TestCallDepthLimit(t *testing.T) {
	ctx := context.Background()
	r := hostRuntime(t, ctx, false)
	m := instantiateRaw(t, ctx, r, mustInstrument(t, Recursion(), Options{}))
	start := time.Now()
	_, err := m.ExportedFunction("rec").Call(ctx)
	if !errors.Is(err, errDepth) {
		t.Fatalf("err = %v, want the depth error", err)
	}
	t.Logf("runaway recursion ended after %v", time.Since(start))

	// countdown(n): n == 0 ? 0 : countdown(n-1) + 1, exported as "down";
	// every exit form is used: return, br to the function, br_table to
	// the function, return_call.
	const limit = 50
	wasm := countdown()
	inst := mustInstrument(t, wasm, Options{MaxCallDepth: limit})
	m = instantiateRaw(t, ctx, r, inst)
	for i := range 4 * limit {
		n := uint64(i % limit) // depth n+1 at the bottom
		res, err := m.ExportedFunction("down").Call(ctx, n)
		if err != nil || res[0] != n {
			t.Fatalf("call %d: down(%d) = %v, %v", i, n, res, err)
		}
	}
	if _, err := m.ExportedFunction("down").Call(ctx, limit); !errors.Is(err, errDepth) {
		t.Fatalf("down(%d) = %v, want the depth error", limit, err)
	}
}

// countdown exports "down" (I32) -> I32 = n, computed by recursion that
// leaves its frames in every way there is: return (n == 0), return_call
// (n&3 == 3, through a helper), br to the function's label (n&3 == 1),
// br_table to it (n&3 == 2), br_if to it (n&7 == 0), and the end.
func countdown() []byte {
	types := Sec(1, Vec(1, []byte{0x60, 1, I32, 1, I32}))
	funcs := Sec(3, Vec(2, U(0), U(0)))
	exports := Sec(7, Vec(1, Str("down"), []byte{0x00}, U(0)))
	down := Body([]byte{0x01, 0x01, I32},
		0x20, 0x00, 0x45, 0x04, 0x40, 0x41, 0x00, 0x0f, 0x0b, // if n == 0 { return 0 }
		0x20, 0x00, 0x41, 0x03, 0x71, 0x41, 0x03, 0x46, 0x04, 0x40, 0x20, 0x00, 0x12, 0x01, 0x0b, // if n&3 == 3 { return_call helper(n) }
		0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00, 0x41, 0x01, 0x6a, 0x21, 0x01, // r = down(n-1) + 1
		0x20, 0x00, 0x41, 0x03, 0x71, 0x41, 0x01, 0x46, 0x04, 0x40, 0x20, 0x01, 0x0c, 0x01, 0x0b, // if n&3 == 1 { br 1 (r) }
		0x20, 0x00, 0x41, 0x03, 0x71, 0x41, 0x02, 0x46, 0x04, 0x40, 0x20, 0x01, 0x20, 0x00, 0x0e, 0x00, 0x01, 0x0b, // if n&3 == 2 { br_table [] 1 (r) }
		0x20, 0x01, 0x20, 0x00, 0x41, 0x07, 0x71, 0x45, 0x0d, 0x00, // br_if 0 (r) when n&7 == 0; else r at the end
	)
	helper := Body(U(0), 0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00, 0x41, 0x01, 0x6a)
	return Module(types, funcs, exports, Sec(10, Vec(2, down, helper)))
}
