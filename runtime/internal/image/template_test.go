package image

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
	. "github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// genModule is a random module with what an image must capture: active
// data segments at constant offsets, mutable globals of the four number
// types (some exported), and an _initialize that stores into memory and
// sets globals. Each global has an exported getter, get<i>, returning it
// as bits in an i64.
func genModule(r *rand.Rand) []byte {
	types := []byte{0x7f, 0x7e, 0x7d, 0x7c}
	nGlobals := 1 + r.IntN(6)
	var globals [][]byte
	var gtypes []byte
	for range nGlobals {
		t := types[r.IntN(4)]
		gtypes = append(gtypes, t)
		var init []byte
		switch t {
		case 0x7f:
			init = append([]byte{0x41}, S(int64(r.Int32()))...)
		case 0x7e:
			init = append([]byte{0x42}, S(r.Int64())...)
		case 0x7d:
			init = append([]byte{0x43}, byte(r.IntN(256)), 1, 2, 3)
		case 0x7c:
			init = append([]byte{0x44}, 1, 2, 3, 4, 5, 6, 7, byte(r.IntN(256)))
		}
		globals = append(globals, append(append([]byte{t, 1}, init...), 0x0b))
	}
	// _initialize: for each i32/i64 global, add a constant; store a
	// constant at a few addresses.
	var code []byte
	for i, t := range gtypes {
		switch t {
		case 0x7f:
			code = append(code, 0x23, byte(i), 0x41)
			code = append(code, S(int64(r.Int32()))...)
			code = append(code, 0x6a, 0x24, byte(i))
		case 0x7e:
			code = append(code, 0x23, byte(i), 0x42)
			code = append(code, S(r.Int64())...)
			code = append(code, 0x7c, 0x24, byte(i))
		}
	}
	for range r.IntN(5) {
		code = append(code, 0x41)
		code = append(code, S(int64(r.IntN(2*PageSize-8)))...)
		code = append(code, 0x42)
		code = append(code, S(r.Int64())...)
		code = append(code, 0x37, 0x03, 0x00) // i64.store align=8 offset=0
	}
	bodies := [][]byte{Body([]byte{0}, code...)}
	funcs := []byte{0} // _initialize: type 0
	exports := [][]byte{append(Str("_initialize"), 0, 0)}
	for i, t := range gtypes {
		c := []byte{0x23, byte(i)}
		switch t {
		case 0x7f:
			c = append(c, 0xad) // i64.extend_i32_u
		case 0x7d:
			c = append(c, 0xbc, 0xad) // i32.reinterpret_f32, extend
		case 0x7c:
			c = append(c, 0xbd) // i64.reinterpret_f64
		}
		bodies = append(bodies, Body([]byte{0}, c...))
		funcs = append(funcs, 1)
		exports = append(exports, append(append(Str(fmt.Sprintf("get%d", i)), 0), U(uint32(i+1))...))
		if r.IntN(3) == 0 {
			exports = append(exports, append(append(Str(fmt.Sprintf("g%d", i)), 3), U(uint32(i))...))
		}
	}
	var segs [][]byte
	for range r.IntN(8) {
		data := make([]byte, r.IntN(300))
		for j := range data {
			data[j] = byte(r.IntN(256))
		}
		off := r.IntN(2*PageSize - len(data))
		seg := append([]byte{0, 0x41}, S(int64(off))...)
		seg = append(seg, 0x0b)
		seg = append(seg, U(uint32(len(data)))...)
		segs = append(segs, append(seg, data...))
	}
	fv := Vec(len(funcs))
	for _, f := range funcs {
		fv = append(fv, U(uint32(f))...)
	}
	secs := [][]byte{
		Sec(wasmbin.SecType, Vec(2, []byte{0x60, 0, 0}, []byte{0x60, 0, 1, 0x7e})),
		Sec(wasmbin.SecFunction, fv),
		Sec(wasmbin.SecMemory, Vec(1, []byte{0, 2})),
		Sec(wasmbin.SecGlobal, Vec(len(globals), globals...)),
		Sec(wasmbin.SecExport, Vec(len(exports), exports...)),
	}
	if r.IntN(2) == 0 {
		secs = append(secs, Sec(wasmbin.SecDataCnt, U(uint32(len(segs)))))
	}
	secs = append(secs, Sec(wasmbin.SecCode, Vec(len(bodies), bodies...)), Sec(wasmbin.SecData, Vec(len(segs), segs...)))
	return Module(secs...)
}

// state is a module instance's memory and the values of its getters.
type state struct {
	mem     []byte
	globals []uint64
}

// TestTemplateSameState: for generated modules, the original initialised
// and the template with its segments written and initialised reach the
// same memory and globals; and a second template instance given that
// snapshot (memory and the exported globals) has the same state again.
func TestTemplateSameState(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 1))
		wasm := genModule(r)
		tmpl, err := Make(wasm)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		run := func(wasm []byte, segs bool, snap *state) state {
			t.Helper()
			c, err := rt.CompileModule(ctx, wasm)
			if err != nil {
				t.Fatalf("seed %d: compile: %v", seed, err)
			}
			defer c.Close(ctx)
			mod, err := rt.InstantiateModule(ctx, c, wazero.NewModuleConfig().WithName("").WithStartFunctions())
			if err != nil {
				t.Fatalf("seed %d: instantiate: %v", seed, err)
			}
			defer mod.Close(ctx)
			switch {
			case snap != nil:
				mod.Memory().Write(0, snap.mem)
				for i, g := range tmpl.Globals {
					mod.ExportedGlobal(g.Export).(interface{ Set(uint64) }).Set(snap.globals[i])
				}
			default:
				if segs {
					for _, s := range tmpl.Segments {
						mod.Memory().Write(s.Offset, s.Data)
					}
				}
				if _, err := mod.ExportedFunction("_initialize").Call(ctx); err != nil {
					t.Fatalf("seed %d: init: %v", seed, err)
				}
			}
			var st state
			b, _ := mod.Memory().Read(0, mod.Memory().Size())
			st.mem = bytes.Clone(b)
			for i := range tmpl.Globals {
				res, err := mod.ExportedFunction(fmt.Sprintf("get%d", i)).Call(ctx)
				if err != nil {
					t.Fatal(err)
				}
				st.globals = append(st.globals, res[0])
			}
			return st
		}
		want := run(wasm, false, nil)
		got := run(tmpl.Wasm, true, nil)
		if !bytes.Equal(want.mem, got.mem) || fmt.Sprint(want.globals) != fmt.Sprint(got.globals) {
			t.Fatalf("seed %d: the template initialised differs from the module", seed)
		}
		// A snapshot holds the exported globals' raw values.
		c, _ := rt.CompileModule(ctx, tmpl.Wasm)
		mod, _ := rt.InstantiateModule(ctx, c, wazero.NewModuleConfig().WithName("").WithStartFunctions())
		for _, s := range tmpl.Segments {
			mod.Memory().Write(s.Offset, s.Data)
		}
		mod.ExportedFunction("_initialize").Call(ctx)
		snap := state{mem: got.mem}
		for _, g := range tmpl.Globals {
			snap.globals = append(snap.globals, mod.ExportedGlobal(g.Export).Get())
		}
		mod.Close(ctx)
		c.Close(ctx)
		again := run(tmpl.Wasm, false, &snap)
		if !bytes.Equal(want.mem, again.mem) || fmt.Sprint(want.globals) != fmt.Sprint(again.globals) {
			t.Fatalf("seed %d: an instance restored from the snapshot differs from the module initialised", seed)
		}
	}
}
