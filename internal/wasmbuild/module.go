package wasmbuild

import "slices"

// A tiny Wasm binary assembler for tests and benchmarks that need modules
// no Go toolchain produces: a trap, a bad import, a hand-sized Extism
// plugin with no language runtime.

// Value types.
const (
	I32 byte = 0x7f
	I64 byte = 0x7e
)

// Func is a function signature with, for defined functions, its locals and
// body (the instructions, without the final end).
type Func struct {
	Params, Results []byte
	Locals          []byte // one value type per local
	Body            []byte
}

// Import is an imported function.
type Import struct {
	Module, Name string
	Func
}

// Module is a module of imported and defined functions and one memory.
// Function indices count imports first, as in Wasm.
type Module struct {
	Imports     []Import
	Funcs       []Func
	Exports     map[string]uint32 // export name → function index
	MemoryPages uint32            // 0: no memory
	Data        []byte            // placed at address 0 of the memory
}

// Encode returns the module's binary form.
func (m Module) Encode() []byte {
	out := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	var types, imports, funcs, code []byte
	ntypes := 0
	addType := func(f Func) uint32 {
		types = append(types, 0x60)
		types = append(types, vec(f.Params)...)
		types = append(types, vec(f.Results)...)
		ntypes++
		return uint32(ntypes - 1)
	}
	for _, im := range m.Imports {
		t := addType(im.Func)
		imports = append(imports, name(im.Module)...)
		imports = append(imports, name(im.Name)...)
		imports = append(imports, 0x00)
		imports = append(imports, uleb(t)...)
	}
	for _, f := range m.Funcs {
		funcs = append(funcs, uleb(addType(f))...)
		var body []byte
		body = append(body, uleb(uint32(len(f.Locals)))...)
		for _, l := range f.Locals {
			body = append(body, 1, l)
		}
		body = append(body, f.Body...)
		body = append(body, 0x0b)
		code = append(code, uleb(uint32(len(body)))...)
		code = append(code, body...)
	}
	out = section(out, 1, ntypes, types)
	out = section(out, 2, len(m.Imports), imports)
	out = section(out, 3, len(m.Funcs), funcs)
	if m.MemoryPages > 0 {
		out = section(out, 5, 1, append([]byte{0x00}, uleb(m.MemoryPages)...))
	}
	var exports []byte
	names := make([]string, 0, len(m.Exports))
	for n := range m.Exports {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		exports = append(exports, name(n)...)
		exports = append(exports, 0x00)
		exports = append(exports, uleb(m.Exports[n])...)
	}
	if m.MemoryPages > 0 {
		exports = append(exports, name("memory")...)
		exports = append(exports, 0x02, 0x00)
		out = section(out, 7, len(names)+1, exports)
	} else {
		out = section(out, 7, len(names), exports)
	}
	out = section(out, 10, len(m.Funcs), code)
	if len(m.Data) > 0 {
		seg := append([]byte{0x00, opI32Const}, SLEB(0)...)
		seg = append(seg, 0x0b)
		seg = append(seg, vec(m.Data)...)
		out = section(out, 11, 1, seg)
	}
	return out
}

func section(out []byte, id byte, count int, body []byte) []byte {
	if count == 0 {
		return out
	}
	content := append(uleb(uint32(count)), body...)
	out = append(out, id)
	out = append(out, uleb(uint32(len(content)))...)
	return append(out, content...)
}

func vec(b []byte) []byte { return append(uleb(uint32(len(b))), b...) }

func name(s string) []byte { return append(uleb(uint32(len(s))), s...) }

func uleb(v uint32) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			c |= 0x80
		}
		b = append(b, c)
		if v == 0 {
			return b
		}
	}
}

// SLEB encodes a signed LEB128 immediate (for i32.const and i64.const).
func SLEB(v int64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// ULEB encodes an unsigned LEB128 immediate (indices).
func ULEB(v uint32) []byte { return uleb(v) }

// Instructions used by the modules below.
const (
	opUnreachable = 0x00
	opBlock       = 0x02
	opLoop        = 0x03
	opBr          = 0x0c
	opBrIf        = 0x0d
	opCall        = 0x10
	opLocalGet    = 0x20
	opLocalSet    = 0x21
	opI32Const    = 0x41
	opI64Const    = 0x42
	opI64GeU      = 0x5a
	opI64Add      = 0x7c
	opI32Load8U   = 0x2d
	opI32WrapI64  = 0xa7
	blockEmpty    = 0x40
)

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// envImport is an import of an Extism host function.
func envImport(name string, params, results []byte) Import {
	return Import{Module: "extism:host/env", Name: name, Func: Func{Params: params, Results: results}}
}

// EchoPlugin is a minimal Extism plugin with no language runtime (the
// size of a hand-written WAT plugin): exports "echo" (input to output,
// byte by byte through the Extism ABI) and "noop", and "trap", which
// executes unreachable.
func EchoPlugin() []byte {
	const (
		fInputLength = iota
		fInputLoadU8
		fAlloc
		fStoreU8
		fOutputSet
		fEcho
		fNoop
		fTrap
	)
	i64, i32 := []byte{I64}, []byte{I32}
	// locals: 0 n, 1 i, 2 off
	echo := cat(
		[]byte{opCall}, uleb(fInputLength), []byte{opLocalSet, 0},
		[]byte{opLocalGet, 0, opCall}, uleb(fAlloc), []byte{opLocalSet, 2},
		[]byte{opBlock, blockEmpty, opLoop, blockEmpty},
		[]byte{opLocalGet, 1, opLocalGet, 0, opI64GeU, opBrIf, 1},
		[]byte{opLocalGet, 2, opLocalGet, 1, opI64Add},
		[]byte{opLocalGet, 1, opCall}, uleb(fInputLoadU8),
		[]byte{opCall}, uleb(fStoreU8),
		[]byte{opLocalGet, 1, opI64Const}, SLEB(1), []byte{opI64Add, opLocalSet, 1},
		[]byte{opBr, 0, 0x0b, 0x0b},
		[]byte{opLocalGet, 2, opLocalGet, 0, opCall}, uleb(fOutputSet),
		[]byte{opI32Const}, SLEB(0),
	)
	return Module{
		Imports: []Import{
			envImport("input_length", nil, i64),
			envImport("input_load_u8", i64, i32),
			envImport("alloc", i64, i64),
			envImport("store_u8", []byte{I64, I32}, nil),
			envImport("output_set", []byte{I64, I64}, nil),
		},
		Funcs: []Func{
			{Results: i32, Locals: []byte{I64, I64, I64}, Body: echo},
			{Results: i32, Body: cat([]byte{opI32Const}, SLEB(0))},
			{Results: i32, Body: []byte{opUnreachable}},
		},
		Exports:     map[string]uint32{"echo": fEcho, "noop": fNoop, "trap": fTrap},
		MemoryPages: 1,
	}.Encode()
}

// DescribeOnly is an Extism module without a language runtime whose only
// export, describe, outputs d.
func DescribeOnly(d string) []byte { return ConstPlugin(map[string]string{"describe": d}) }

// ConstPlugin is an Extism module without a language runtime whose exports
// each output a fixed text: outputs maps export names to texts. Each
// export copies its text from a data segment into an Extism block, byte
// by byte, as a small hand-written plugin would.
func ConstPlugin(outputs map[string]string) []byte { return ConstModule(outputs).Encode() }

// ConstModule is ConstPlugin's module, for a test to add to before
// encoding it (an initialiser, say).
func ConstModule(outputs map[string]string) Module {
	const (
		fAlloc = iota
		fStoreU8
		fOutputSet
	)
	names := make([]string, 0, len(outputs))
	for n := range outputs {
		names = append(names, n)
	}
	slices.Sort(names)
	var data []byte
	var funcs []Func
	exports := map[string]uint32{}
	for i, name := range names {
		start, n := SLEB(int64(len(data))), SLEB(int64(len(outputs[name])))
		data = append(data, outputs[name]...)
		// locals: 0 i, 1 off
		body := cat(
			[]byte{opI64Const}, n, []byte{opCall}, uleb(fAlloc), []byte{opLocalSet, 1},
			[]byte{opBlock, blockEmpty, opLoop, blockEmpty},
			[]byte{opLocalGet, 0, opI64Const}, n, []byte{opI64GeU, opBrIf, 1},
			[]byte{opLocalGet, 1, opLocalGet, 0, opI64Add},
			[]byte{opLocalGet, 0, opI64Const}, start, []byte{opI64Add, opI32WrapI64, opI32Load8U, 0, 0},
			[]byte{opCall}, uleb(fStoreU8),
			[]byte{opLocalGet, 0, opI64Const}, SLEB(1), []byte{opI64Add, opLocalSet, 0},
			[]byte{opBr, 0, 0x0b, 0x0b},
			[]byte{opLocalGet, 1, opI64Const}, n, []byte{opCall}, uleb(fOutputSet),
			[]byte{opI32Const}, SLEB(0),
		)
		funcs = append(funcs, Func{Results: []byte{I32}, Locals: []byte{I64, I64}, Body: body})
		exports[name] = uint32(3 + i)
	}
	pages := uint32(len(data)>>16 + 1)
	return Module{
		Imports: []Import{
			envImport("alloc", []byte{I64}, []byte{I64}),
			envImport("store_u8", []byte{I64, I32}, nil),
			envImport("output_set", []byte{I64, I64}, nil),
		},
		Funcs:       funcs,
		Exports:     exports,
		MemoryPages: pages,
		Data:        data,
	}
}
