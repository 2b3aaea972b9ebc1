// Package wasmgen builds WebAssembly modules for tests: a section-level
// writer, a few named modules that attack termination, and Gen, which
// generates random valid modules from structured pieces.
package wasmgen

import "github.com/wasmagent/wasmagent/runtime/internal/wasmbin"

// Sec is a section with the given id and the concatenated body.
func Sec(id byte, body ...[]byte) []byte {
	var b []byte
	for _, p := range body {
		b = append(b, p...)
	}
	return wasmbin.AppendSection(nil, id, b)
}

// Vec is a vector of n items (the items concatenated).
func Vec(n int, items ...[]byte) []byte {
	out := wasmbin.AppendU32(nil, uint32(n))
	for _, it := range items {
		out = append(out, it...)
	}
	return out
}

// Str is a name.
func Str(s string) []byte { return wasmbin.AppendName(nil, s) }

// U is an unsigned LEB128.
func U(v uint32) []byte { return wasmbin.AppendU32(nil, v) }

// S is a signed LEB128.
func S(v int64) []byte { return wasmbin.AppendS64(nil, v) }

// Body is a function body: its local declarations, code and the end.
func Body(locals []byte, code ...byte) []byte {
	b := append(append([]byte(nil), locals...), code...)
	b = append(b, 0x0b)
	return append(U(uint32(len(b))), b...)
}

// Module is the header followed by the sections.
func Module(sections ...[]byte) []byte {
	m := []byte(wasmbin.Header)
	for _, s := range sections {
		m = append(m, s...)
	}
	return m
}

// I32 is the i32 value type.
const I32 = 0x7f

const i32 = I32

// Tree exports "tree" (() -> i32): a call tree of 2^41 calls with no loop
// anywhere.
func Tree() []byte {
	types := Sec(1, Vec(2, []byte{0x60, 1, i32, 0}, []byte{0x60, 0, 1, i32}))
	funcs := Sec(3, Vec(2, U(0), U(1)))
	exports := Sec(7, Vec(1, Str("tree"), []byte{0x00}, U(1)))
	// f(n): if n > 0 { f(n-1); f(n-1) }
	f := Body(U(0), 0x20, 0x00, 0x41, 0x00, 0x4a, 0x04, 0x40,
		0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00,
		0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00, 0x0b)
	tree := Body(U(0), 0x41, 41, 0x10, 0x00, 0x41, 0x00)
	return Module(types, funcs, exports, Sec(10, Vec(2, f, tree)))
}

// GuardedTree is Tree with every function starting with a loop that never
// runs, inside an if that is never taken: a loop first in code order that
// does not run first (the hole of the old "a loop comes first" rule).
func GuardedTree() []byte {
	types := Sec(1, Vec(2, []byte{0x60, 1, i32, 0}, []byte{0x60, 0, 1, i32}))
	funcs := Sec(3, Vec(2, U(0), U(1)))
	exports := Sec(7, Vec(1, Str("tree"), []byte{0x00}, U(1)))
	never := []byte{0x41, 0x00, 0x04, 0x40, 0x03, 0x40, 0x0b, 0x0b} // if 0 { loop {} }
	f := Body(U(0), append(never, 0x20, 0x00, 0x41, 0x00, 0x4a, 0x04, 0x40,
		0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00,
		0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00, 0x0b)...)
	tree := Body(U(0), append(never, 0x41, 41, 0x10, 0x00, 0x41, 0x00)...)
	return Module(types, funcs, exports, Sec(10, Vec(2, f, tree)))
}

// Spin exports "spin" (() -> i32): an empty infinite loop.
func Spin() []byte {
	types := Sec(1, Vec(1, []byte{0x60, 0, 1, i32}))
	return Module(types, Sec(3, Vec(1, U(0))), Sec(7, Vec(1, Str("spin"), []byte{0x00}, U(0))),
		Sec(10, Vec(1, Body(U(0), 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x41, 0x00))))
}

// Recursion exports "rec" (() -> i32), which recurses without end.
func Recursion() []byte {
	types := Sec(1, Vec(2, []byte{0x60, 1, i32, 0}, []byte{0x60, 0, 1, i32}))
	funcs := Sec(3, Vec(2, U(0), U(1)))
	exports := Sec(7, Vec(1, Str("rec"), []byte{0x00}, U(1)))
	f := Body(U(0), 0x20, 0x00, 0x41, 0x01, 0x6a, 0x10, 0x00)
	rec := Body(U(0), 0x41, 0x00, 0x10, 0x00, 0x41, 0x00)
	return Module(types, funcs, exports, Sec(10, Vec(2, f, rec)))
}

// Index uses every kind of function index the rewrite remaps:
//
//	import env.add3 (i32)->i32                          func 0
//	func 1 "double" (i32)->i32: local.get 0 * 2
//	func 2 "viaCall" (i32)->i32: call 0 (add3), call 1
//	func 3 "viaTable" (i32)->i32: call_indirect through the table [1, 3?]
//	func 4 start: global 0 = 7
//	func 5 "viaRef" ()->i32: the funcref global, called through table.set/call_indirect
//	exports; element segment with func indices; a funcref global initialised
//	by ref.func 1; the start section; a name section naming every function.
func Index() []byte {
	types := Sec(1, Vec(3,
		[]byte{0x60, 1, i32, 1, i32}, // 0: (i32)->i32
		[]byte{0x60, 0, 0},           // 1: ()->()
		[]byte{0x60, 0, 1, i32},      // 2: ()->i32
	))
	imports := Sec(2, Vec(1, Str("env"), Str("add3"), []byte{0x00}, U(0)))
	funcs := Sec(3, Vec(5, U(0), U(0), U(0), U(1), U(2)))
	table := Sec(4, Vec(1, []byte{0x70, 0x00, 0x04}))
	globals := Sec(6, Vec(2,
		[]byte{i32, 0x01, 0x41, 0x00, 0x0b},  // 0: mut i32 = 0
		[]byte{0x70, 0x00, 0xd2, 0x01, 0x0b}, // 1: funcref = ref.func 1
	))
	exports := Sec(7, Vec(5,
		Str("double"), []byte{0x00}, U(1),
		Str("viaCall"), []byte{0x00}, U(2),
		Str("viaTable"), []byte{0x00}, U(3),
		Str("viaRef"), []byte{0x00}, U(5),
		Str("g"), []byte{0x03}, U(0),
	))
	start := Sec(8, U(4))
	// Active segment at offset 0: [double, viaCall].
	elems := Sec(9, Vec(1, U(0), []byte{0x41, 0x00, 0x0b}, Vec(2, U(1), U(2))))
	code := Sec(10, Vec(5,
		Body(U(0), 0x20, 0x00, 0x41, 0x02, 0x6c),                                                 // double
		Body(U(0), 0x20, 0x00, 0x10, 0x00, 0x10, 0x01),                                           // viaCall: double(add3(x))
		Body(U(0), 0x20, 0x00, 0x41, 0x00, 0x11, 0x00, 0x00),                                     // viaTable: table[0](x)
		Body(U(0), 0x41, 0x07, 0x24, 0x00),                                                       // start: g = 7
		Body(U(0), 0x41, 0x02, 0x23, 0x01, 0x26, 0x00, 0x41, 0x05, 0x41, 0x02, 0x11, 0x00, 0x00), // table[2] = ref; table[2](5)
	))
	names := Sec(0, Str("name"), Sec(1, Vec(6,
		U(0), Str("add3"), U(1), Str("double"), U(2), Str("viaCall"),
		U(3), Str("viaTable"), U(4), Str("init"), U(5), Str("viaRef"),
	)))
	return Module(types, imports, funcs, table, globals, exports, start, elems, code, names)
}

// Fill exports "fill" (() -> i32): an endless loop of memory.fill over
// 16 MiB, which one check per iteration would let run for minutes past a
// deadline.
func Fill() []byte {
	types := Sec(1, Vec(1, []byte{0x60, 0, 1, I32}))
	mem := Sec(5, Vec(1, []byte{0x00, 0x80, 0x02})) // 256 pages
	code := []byte{0x03, 0x40, 0x41, 0x00, 0x41, 0x00, 0x41}
	code = append(code, S(16<<20)...)
	code = append(code, 0xfc, 11, 0x00, 0x0c, 0x00, 0x0b, 0x41, 0x00)
	return Module(types, Sec(3, Vec(1, U(0))), mem, Sec(7, Vec(1, Str("fill"), []byte{0x00}, U(0))),
		Sec(10, Vec(1, Body(U(0), code...))))
}

// Grow exports "grow" ((i32) -> i32): table.grow of a funcref table with
// no maximum by n null entries, returning the old size or -1.
func Grow() []byte {
	types := Sec(1, Vec(1, []byte{0x60, 1, I32, 1, I32}))
	table := Sec(4, Vec(1, []byte{0x70, 0x00, 0x01}))
	code := []byte{0xd0, 0x70, 0x20, 0x00, 0xfc, 15, 0x00}
	return Module(types, Sec(3, Vec(1, U(0))), table, Sec(7, Vec(1, Str("grow"), []byte{0x00}, U(0))),
		Sec(10, Vec(1, Body(U(0), code...))))
}

// GrowTables defines n funcref tables of one element and exports "fill"
// (() -> i32): it grows each table by one element until table.grow fails,
// and returns the tables' sizes summed.
func GrowTables(n int) []byte {
	types := Sec(1, Vec(1, []byte{0x60, 0, 1, I32}))
	var tables, code []byte
	for t := range n {
		tables = append(tables, 0x70, 0x00, 0x01)
		code = append(code, 0x02, 0x40, 0x03, 0x40, 0xd0, 0x70, 0x41, 0x01, 0xfc, 15) // block loop; ref.null; 1; table.grow
		code = append(code, U(uint32(t))...)
		code = append(code, 0x41, 0x7f, 0x46, 0x0d, 0x01, 0x0c, 0x00, 0x0b, 0x0b) // -1; eq; br_if out; br loop; end end
	}
	code = append(code, 0x41, 0x00)
	for t := range n {
		code = append(code, 0xfc, 16)
		code = append(code, U(uint32(t))...)
		code = append(code, 0x6a) // i32.add
	}
	return Module(types, Sec(3, Vec(1, U(0))), Sec(4, Vec(n, tables)), Sec(7, Vec(1, Str("fill"), []byte{0x00}, U(0))),
		Sec(10, Vec(1, Body(U(0), code...))))
}

// HostLoop exports "spin" (() -> i32): an endless loop whose body calls
// env.host (i32) -> i32 n times.
func HostLoop(n int) []byte {
	types := Sec(1, Vec(2, []byte{0x60, 1, I32, 1, I32}, []byte{0x60, 0, 1, I32}))
	imports := Sec(2, Vec(1, Str("env"), Str("host"), []byte{0x00}, U(0)))
	code := []byte{0x03, 0x40}
	for range n {
		code = append(code, 0x20, 0x00, 0x10, 0x00, 0x21, 0x00)
	}
	code = append(code, 0x0c, 0x00, 0x0b, 0x20, 0x00)
	return Module(types, imports, Sec(3, Vec(1, U(1))), Sec(7, Vec(1, Str("spin"), []byte{0x00}, U(1))),
		Sec(10, Vec(1, Body([]byte{0x01, 0x01, I32}, code...))))
}
