package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// A tiny section-level module writer for these tests.
func sec(id byte, body ...[]byte) []byte {
	var b []byte
	for _, p := range body {
		b = append(b, p...)
	}
	return append(append([]byte{id}, appendU32(nil, uint32(len(b)))...), b...)
}

func vec(n int, items ...[]byte) []byte {
	out := appendU32(nil, uint32(n))
	for _, it := range items {
		out = append(out, it...)
	}
	return out
}

func str(s string) []byte { return appendName(nil, s) }

func u(v uint32) []byte { return appendU32(nil, v) }

func body(locals []byte, code ...byte) []byte {
	b := append(append([]byte(nil), locals...), code...)
	b = append(b, 0x0b)
	return append(u(uint32(len(b))), b...)
}

func module(sections ...[]byte) []byte {
	m := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range sections {
		m = append(m, s...)
	}
	return m
}

// indexModule uses every kind of function index the rewrite remaps:
//
//	import env.add3 (i32)->i32                          func 0
//	func 1 "double" (i32)->i32: local.get 0 * 2
//	func 2 "viaCall" (i32)->i32: call 0 (add3), call 1
//	func 3 "viaTable" (i32)->i32: call_indirect through the table [1, 3?]
//	func 4 start: global 0 = 7
//	func 5 "viaRef" ()->i32: the funcref global, called through table.set/call_indirect
//	exports; element segment with func indices; a funcref global initialised
//	by ref.func 1; the start section; a name section naming every function.
func indexModule() []byte {
	i32 := byte(0x7f)
	types := sec(1, vec(3,
		[]byte{0x60, 1, i32, 1, i32}, // 0: (i32)->i32
		[]byte{0x60, 0, 0},           // 1: ()->()
		[]byte{0x60, 0, 1, i32},      // 2: ()->i32
	))
	imports := sec(2, vec(1, str("env"), str("add3"), []byte{0x00}, u(0)))
	funcs := sec(3, vec(5, u(0), u(0), u(0), u(1), u(2)))
	table := sec(4, vec(1, []byte{0x70, 0x00, 0x04}))
	globals := sec(6, vec(2,
		[]byte{i32, 0x01, 0x41, 0x00, 0x0b},  // 0: mut i32 = 0
		[]byte{0x70, 0x00, 0xd2, 0x01, 0x0b}, // 1: funcref = ref.func 1
	))
	exports := sec(7, vec(5,
		str("double"), []byte{0x00}, u(1),
		str("viaCall"), []byte{0x00}, u(2),
		str("viaTable"), []byte{0x00}, u(3),
		str("viaRef"), []byte{0x00}, u(5),
		str("g"), []byte{0x03}, u(0),
	))
	start := sec(8, u(4))
	// Active segment at offset 0: [double, viaCall].
	elems := sec(9, vec(1, u(0), []byte{0x41, 0x00, 0x0b}, vec(2, u(1), u(2))))
	code := sec(10, vec(5,
		body(u(0), 0x20, 0x00, 0x41, 0x02, 0x6c),                                                 // double
		body(u(0), 0x20, 0x00, 0x10, 0x00, 0x10, 0x01),                                           // viaCall: double(add3(x))
		body(u(0), 0x20, 0x00, 0x41, 0x00, 0x11, 0x00, 0x00),                                     // viaTable: table[0](x)
		body(u(0), 0x41, 0x07, 0x24, 0x00),                                                       // start: g = 7
		body(u(0), 0x41, 0x02, 0x23, 0x01, 0x26, 0x00, 0x41, 0x05, 0x41, 0x02, 0x11, 0x00, 0x00), // table[2] = ref; table[2](5)
	))
	names := sec(0, str("name"), sec(1, vec(6,
		u(0), str("add3"), u(1), str("double"), u(2), str("viaCall"),
		u(3), str("viaTable"), u(4), str("init"), u(5), str("viaRef"),
	)))
	return module(types, imports, funcs, table, globals, exports, start, elems, code, names)
}

// instantiate runs wasm (instrumented or not) on a plain wazero runtime with
// env.add3 and, when needed, wasmagent.tick.
func instantiateRaw(t *testing.T, ctx context.Context, wasm []byte) (api.Module, wazero.Runtime) {
	t.Helper()
	r := wazero.NewRuntime(ctx)
	t.Cleanup(func() { r.Close(ctx) })
	r.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithFunc(func(x int32) int32 { return x + 3 }).Export("add3").Instantiate(ctx)
	r.NewHostModuleBuilder(tickModule).NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(tick), nil, []api.ValueType{api.ValueTypeI64}).Export(tickName).Instantiate(ctx)
	m, err := r.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	return m, r
}

func TestInstrumentedOutputsAreIdentical(t *testing.T) {
	ctx := context.Background()
	orig := indexModule()
	inst, err := instrument(orig)
	if err != nil {
		t.Fatal(err)
	}
	results := func(wasm []byte) []uint64 {
		m, _ := instantiateRaw(t, ctx, wasm)
		// the start function, run by hand (WithStartFunctions() is empty)
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
	// The start function runs at instantiation with start functions on:
	// the global it sets is the same either way.
	for _, wasm := range [][]byte{orig, inst} {
		r := wazero.NewRuntime(ctx)
		defer r.Close(ctx)
		r.NewHostModuleBuilder("env").NewFunctionBuilder().WithFunc(func(x int32) int32 { return x + 3 }).Export("add3").Instantiate(ctx)
		r.NewHostModuleBuilder(tickModule).NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(tick), nil, []api.ValueType{api.ValueTypeI64}).Export(tickName).Instantiate(ctx)
		m, err := r.Instantiate(ctx, wasm)
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

// Plugins built by the Go toolchain and the assembler give the same
// outputs instrumented; TestSameOutputsAsExtism checks the same through
// go-sdk, which runs them uninstrumented.
func TestInstrumentedEcho(t *testing.T) {
	ctx := context.Background()
	for _, wasm := range [][]byte{wasmbuild.EchoPlugin(), wasmbuild.DescribeOnly(`{"abi":1}`)} {
		inst, err := instrument(wasm)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := wazero.NewRuntime(ctx).CompileModule(ctx, inst); err != nil {
			t.Fatalf("instrumented module does not compile: %v", err)
		}
	}
}

// Invalid modules stay invalid: an index that would name what the rewrite
// adds is refused before rewriting.
func TestInvalidModulesStayInvalid(t *testing.T) {
	i32 := byte(0x7f)
	typ := sec(1, vec(1, []byte{0x60, 0, 1, i32}))
	fn := sec(3, vec(1, u(0)))
	exp := sec(7, vec(1, str("f"), []byte{0x00}, u(0)))
	glob := sec(6, vec(1, []byte{0x7e, 0x01, 0x42, 0x00, 0x0b}))
	cases := map[string][]byte{
		// global.set 1: with one global, 1 would be the budget.
		"global index": module(typ, fn, glob, exp, sec(10, vec(1, body(u(0), 0x42, 0x00, 0x24, 0x01, 0x41, 0x00)))),
		// call 1: one function, 1 would be the first after the new import.
		"function index": module(typ, fn, exp, sec(10, vec(1, body(u(0), 0x10, 0x01, 0x41, 0x00)))),
		// local.get 0 with no locals: 0 would be the scratch local.
		"local index": module(typ, fn, exp, sec(10, vec(1, body(u(0), 0x20, 0x00)))),
		// call_indirect type 1: one type, 1 would be the tick type.
		"type index": module(typ, fn, sec(4, vec(1, []byte{0x70, 0x00, 0x01})), exp, sec(10, vec(1, body(u(0), 0x41, 0x00, 0x11, 0x01, 0x00)))),
		// an export of function 1
		"export index": module(typ, fn, sec(7, vec(1, str("f"), []byte{0x00}, u(1))), sec(10, vec(1, body(u(0), 0x41, 0x00)))),
		// a 32-bit integer with unused bits set
		"malformed integer": module(typ, fn, exp, sec(10, vec(1, body(u(0), 0x41, 0x80, 0x80, 0x80, 0x80, 0x70)))),
		"reserved import":   module(typ, sec(2, vec(1, str("wasmagent"), str("tick"), []byte{0x00}, u(0)))),
		"unknown opcode":    module(typ, fn, exp, sec(10, vec(1, body(u(0), 0x06, 0x40, 0x0b, 0x41, 0x00)))),
	}
	ctx := context.Background()
	for name, wasm := range cases {
		if _, err := wazero.NewRuntime(ctx).CompileModule(ctx, wasm); err == nil && name != "reserved import" && name != "unknown opcode" {
			t.Errorf("%s: the test module is valid to begin with", name)
		}
		if inst, err := instrument(wasm); err == nil {
			if _, err := wazero.NewRuntime(ctx).CompileModule(ctx, inst); err == nil {
				t.Errorf("%s: the instrumented module is valid", name)
			}
		}
	}
}

// treeModule exports "tree" (Extism style, () -> i32): a call tree of 2^41
// calls with no loop anywhere.
func treeModule() []byte {
	i32 := byte(0x7f)
	types := sec(1, vec(2, []byte{0x60, 1, i32, 0}, []byte{0x60, 0, 1, i32}))
	funcs := sec(3, vec(2, u(0), u(1)))
	exports := sec(7, vec(1, str("tree"), []byte{0x00}, u(1)))
	// f(n): if n > 0 { f(n-1); f(n-1) }
	f := body(u(0), 0x20, 0x00, 0x41, 0x00, 0x4a, 0x04, 0x40,
		0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00,
		0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00, 0x0b)
	tree := body(u(0), 0x41, 41, 0x10, 0x00, 0x41, 0x00)
	return module(types, funcs, exports, sec(10, vec(2, f, tree)))
}

// spinModule exports "spin" (() -> i32): an empty infinite loop.
func spinModule() []byte {
	types := sec(1, vec(1, []byte{0x60, 0, 1, 0x7f}))
	return module(types, sec(3, vec(1, u(0))), sec(7, vec(1, str("spin"), []byte{0x00}, u(0))),
		sec(10, vec(1, body(u(0), 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x41, 0x00))))
}

// A loop-free call tree and an infinite loop are each stopped at their
// deadline, and the host keeps running meanwhile: a goroutine that
// allocates and collects garbage keeps beating (without fuel, the GC's
// stop-the-world would wait on the guest and freeze every goroutine).
func TestLoopFreeCallTreeStops(t *testing.T) {
	for _, c := range []struct {
		name   string
		wasm   []byte
		export string
	}{{"call tree", treeModule(), "tree"}, {"infinite loop", spinModule(), "spin"}} {
		t.Run(c.name, func(t *testing.T) { stopsWhileHostBeats(t, c.wasm, c.export) })
	}
}

func stopsWhileHostBeats(t *testing.T, wasm []byte, export string) {
	ctx := context.Background()
	inst, err := instrument(wasm)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := instantiateRaw(t, ctx, inst)
	var beats atomic.Int32
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
				_ = make([]byte, 1<<20)
				goruntime.GC()
				beats.Add(1)
			}
		}
	}()
	defer close(stop)
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = m.ExportedFunction(export).Call(cctx)
	var exit *sys.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != sys.ExitCodeDeadlineExceeded {
		t.Fatalf("err = %v, want a deadline exit", err)
	}
	took := time.Since(start)
	if n := beats.Load(); n < 3 {
		t.Fatalf("the host goroutine beat %d times in %v", n, took)
	}
	t.Logf("stopped after %v; the host goroutine beat %d times", took, beats.Load())
}

// The same through a Plugin: a timeout and an abort both end the tree.
func TestCallTreeThroughPlugin(t *testing.T) {
	r, err := New(context.Background(), Options{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background())
	m, err := r.Compile(context.Background(), "tree.wasm", treeModule())
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.NewPlugin(m, PluginOptions{Grants: Grants{Timeout: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Call(context.Background(), "tree", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := p.Call(ctx, "tree", nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("abort: %v", err)
	}
}

// recursionModule exports "rec" (() -> i32), which recurses without end.
func recursionModule() []byte {
	i32 := byte(0x7f)
	types := sec(1, vec(2, []byte{0x60, 1, i32, 0}, []byte{0x60, 0, 1, i32}))
	funcs := sec(3, vec(2, u(0), u(1)))
	exports := sec(7, vec(1, str("rec"), []byte{0x00}, u(1)))
	f := body(u(0), 0x20, 0x00, 0x41, 0x01, 0x6a, 0x10, 0x00)
	rec := body(u(0), 0x41, 0x00, 0x10, 0x00, 0x41, 0x00)
	return module(types, funcs, exports, sec(10, vec(2, f, rec)))
}

// recursionPlugin is recursionModule as a plugin of a new Runtime.
func recursionPlugin(t *testing.T, opts Options, g Grants) *Plugin {
	t.Helper()
	r, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	m, err := r.Compile(context.Background(), "rec.wasm", recursionModule())
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.NewPlugin(m, PluginOptions{Grants: g})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// Runaway recursion ends in a clean error once wazero's call stack ceiling
// is reached; the host stays up. (The stack is not counted in the memory
// grant: SECURITY.md states the bound that the concurrency cap gives.)
func TestRunawayRecursion(t *testing.T) {
	if testing.Short() {
		t.Skip("grows a 400 MB call stack")
	}
	p := recursionPlugin(t, Options{CacheDir: "off"}, Grants{})
	start := time.Now()
	_, err := p.Call(context.Background(), "rec", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "stack overflow") {
		t.Fatalf("err = %v", err)
	}
	t.Logf("%v after %v", err, time.Since(start))
}

// peakRSS resets and then reads the process's peak resident memory
// (Linux); ok is false elsewhere.
func resetPeakRSS() bool { return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil }

func peakRSS() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb << 10, true
		}
	}
	return 0, false
}

// Six concurrent runaway recursions with a host cap of 2 stay under the
// stated bound: per running call, its memory grants plus wazero's
// 400 MB call-stack ceiling.
func TestRecursionMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("grows call stacks")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory is not what the bound is about")
	}
	if !resetPeakRSS() {
		t.Skip("needs Linux /proc/self/clear_refs")
	}
	const cap = 2
	p := recursionPlugin(t, Options{CacheDir: "off", MaxConcurrentCalls: cap}, Grants{MemoryPages: 16})
	debug.FreeOSMemory()
	resetPeakRSS()
	base, _ := peakRSS()
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.Call(context.Background(), "rec", nil, nil); err == nil || !strings.Contains(err.Error(), "stack overflow") {
				t.Errorf("err = %v", err)
			}
		}()
	}
	wg.Wait()
	peak, _ := peakRSS()
	grant := int64(2 * 16 << 16) // linear memory and host memory, 16 pages each
	bound := base + cap*(400<<20+grant)
	t.Logf("peak RSS %d MiB over a base of %d MiB; bound %d MiB", peak>>20, base>>20, bound>>20)
	if peak > bound {
		t.Fatalf("peak RSS %d MiB is over the bound of %d MiB", peak>>20, bound>>20)
	}
}
