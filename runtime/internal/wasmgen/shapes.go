package wasmgen

import (
	"bytes"
	"fmt"
)

// Shapes names the function shapes Shape builds: each costs an optimising
// compiler more than its size suggests, in a different way.
var Shapes = []string{
	"ifs",          // n sequential ifs, each changing a local
	"loops",        // n loops nested, each with a br_if back
	"blocks",       // n blocks nested, no branches
	"brif",         // n br_ifs out of one block
	"brtable",      // n blocks nested, one br_table to every one
	"tables",       // n/8 br_tables of 8 targets each, in ifs
	"locals",       // n ifs, each setting one of n locals, all read at the end
	"looplocals",   // n/8 nested loops, each changing 8 of n/8 locals
	"straight",     // n additions on one local
	"stack",        // n values on the stack, then n-1 additions
	"calls",        // n calls with a local live across each
	"selects",      // n selects chained
	"funcs",        // n small functions (the shape is the module, not one function)
	"ifsInLoop",    // one loop around n sequential ifs
	"manylocals",   // n ifs, with 49,000 locals declared and two used
	"brifLocals",   // n br_ifs, each after setting one of n locals
	"loopChain",    // n loops one after the other, each with a br_if back
	"brtableWide",  // n nested blocks; n/8 br_tables to every block, in ifs
	"nestedIfs",    // n ifs nested
	"loopsOuter",   // n loops nested; in the innermost, a br_if to each
	"localsInLoop", // one loop around n/4 ifs, each setting one of n/4 locals, all read after
	"blocksLocals", // n blocks nested, each setting one of n locals before its end, all read after
	"declared",     // n functions, each declaring 50,000 locals and using none (the shape is the module)
	"brifArgs",     // a loop of 1,000 parameters; n br_ifs back to it, each carrying them
	"callArgs",     // n calls in a row of a function taking and giving 1,000 values
	"blockArgs",    // n blocks in a row, each taking and giving 1,000 values
}

const (
	opBlock    = 0x02
	opLoop     = 0x03
	opIf       = 0x04
	opEnd      = 0x0b
	opBrIf     = 0x0d
	opBrTable  = 0x0e
	opCall     = 0x10
	opSelect   = 0x1b
	opLocalGet = 0x20
	opLocalSet = 0x21
	opI32Const = 0x41
	opI32Add   = 0x6a
	tEmpty     = 0x40
	tI32       = 0x7f
)

// Shape is a valid module exporting "f", a function (i32) -> i32 of the
// named shape and size n (Shapes). It panics on an unknown name.
func Shape(name string, n int) []byte {
	switch name {
	case "funcs":
		return funcsModule(n)
	case "declared":
		return declaredModule(n)
	case "brifArgs", "callArgs", "blockArgs":
		return arityModule(name, n)
	}
	locals, code := shapeBody(name, n)
	return oneFunc(locals, code)
}

func shapeBody(name string, n int) (locals, code []byte) {
	get0 := []byte{opLocalGet, 0}
	var c []byte
	rep := func(k int, b ...byte) {
		for range k {
			c = append(c, b...)
		}
	}
	switch name {
	case "ifs":
		rep(n, opLocalGet, 0, opIf, tEmpty, opLocalGet, 0, opI32Const, 1, opI32Add, opLocalSet, 0, opEnd)
	case "loops":
		rep(n, opLoop, tEmpty)
		rep(n, opLocalGet, 0, opBrIf, 0, opEnd)
	case "blocks":
		rep(n, opBlock, tEmpty)
		rep(n, opEnd)
	case "brif":
		c = append(c, opBlock, tEmpty)
		rep(n, opLocalGet, 0, opBrIf, 0)
		c = append(c, opEnd)
	case "brtable", "brtableWide":
		rep(n, opBlock, tEmpty)
		k, depth := 1, 0
		if name == "brtableWide" {
			k, depth = max(1, n/8), 1
		}
		for range k {
			if depth == 1 {
				c = append(c, opLocalGet, 0, opIf, tEmpty)
			}
			c = append(c, opLocalGet, 0, opBrTable)
			c = append(c, U(uint32(n))...)
			for i := range n {
				c = append(c, U(uint32(i+depth))...)
			}
			c = append(c, 0)
			if depth == 1 {
				c = append(c, opEnd)
			}
		}
		rep(n, opEnd)
	case "tables":
		for range max(1, n/8) {
			c = append(c, opLocalGet, 0, opIf, tEmpty)
			rep(8, opBlock, tEmpty)
			c = append(c, opLocalGet, 0, opBrTable, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8)
			rep(8, opEnd)
			c = append(c, opEnd)
		}
	case "locals", "brifLocals":
		locals = localDecl(n)
		if name == "brifLocals" {
			c = append(c, opBlock, tEmpty)
		}
		for i := range n {
			l := U(uint32(i + 1))
			if name == "brifLocals" {
				c = append(c, opLocalGet, 0, opLocalSet)
				c = append(c, l...)
				c = append(c, opLocalGet, 0, opBrIf, 0)
				continue
			}
			c = append(c, opLocalGet, 0, opIf, tEmpty, opLocalGet, 0, opLocalSet)
			c = append(c, l...)
			c = append(c, opEnd)
		}
		if name == "brifLocals" {
			c = append(c, opEnd)
		}
		for i := range n {
			c = append(c, opLocalGet)
			c = append(c, U(uint32(i+1))...)
			c = append(c, opLocalGet, 0, opI32Add, opLocalSet, 0)
		}
	case "looplocals":
		d := max(1, n/8)
		locals = localDecl(d)
		for i := range d {
			c = append(c, opLoop, tEmpty)
			for j := range 8 {
				c = append(c, opLocalGet, 0, opLocalSet)
				c = append(c, U(uint32((i+j)%d+1))...)
			}
		}
		rep(d, opLocalGet, 0, opBrIf, 0, opEnd)
		for i := range d {
			c = append(c, opLocalGet)
			c = append(c, U(uint32(i+1))...)
			c = append(c, opLocalGet, 0, opI32Add, opLocalSet, 0)
		}
	case "straight":
		rep(n, opLocalGet, 0, opI32Const, 1, opI32Add, opLocalSet, 0)
	case "stack":
		rep(n, get0...)
		rep(n-1, opI32Add)
		c = append(c, opLocalSet, 0)
	case "calls":
		locals = localDecl(1)
		c = append(c, opLocalGet, 0, opLocalSet, 1)
		rep(n, opLocalGet, 0, opCall, 0, opLocalSet, 0)
		c = append(c, opLocalGet, 1, opLocalGet, 0, opI32Add, opLocalSet, 0)
	case "selects":
		rep(n, opLocalGet, 0, opI32Const, 1, opLocalGet, 0, opSelect, opLocalSet, 0)
	case "ifsInLoop":
		c = append(c, opLoop, tEmpty)
		rep(n, opLocalGet, 0, opIf, tEmpty, opLocalGet, 0, opI32Const, 1, opI32Add, opLocalSet, 0, opEnd)
		c = append(c, opLocalGet, 0, opBrIf, 0, opEnd)
	case "manylocals":
		locals = localDecl(49000)
		rep(n, opLocalGet, 0, opIf, tEmpty, opLocalGet, 0, opLocalSet, 1, opEnd)
		c = append(c, opLocalGet, 1, opLocalSet, 0)
	case "nestedIfs":
		rep(n, opLocalGet, 0, opIf, tEmpty)
		rep(n, opEnd)
	case "loopsOuter":
		rep(n, opLoop, tEmpty)
		for i := range n {
			c = append(c, opLocalGet, 0, opBrIf)
			c = append(c, U(uint32(i))...)
		}
		rep(n, opEnd)
	case "localsInLoop":
		v := max(1, n/4)
		locals = localDecl(v)
		c = append(c, opLoop, tEmpty)
		for i := range v {
			c = append(c, opLocalGet, 0, opIf, tEmpty, opLocalGet, 0, opLocalSet)
			c = append(c, U(uint32(i+1))...)
			c = append(c, opEnd)
		}
		c = append(c, opLocalGet, 0, opBrIf, 0, opEnd)
		c = appendReadAll(c, v)
	case "blocksLocals":
		locals = localDecl(n)
		rep(n, opBlock, tEmpty)
		for i := range n {
			c = append(c, opLocalGet, 0, opLocalSet)
			c = append(c, U(uint32(i+1))...)
			c = append(c, opLocalGet, 0, opBrIf, 0, opEnd)
		}
		c = appendReadAll(c, n)
	case "loopChain":
		rep(n, opLoop, tEmpty, opLocalGet, 0, opBrIf, 0, opEnd)
	default:
		panic(fmt.Sprintf("wasmgen: no shape %q", name))
	}
	c = append(c, opLocalGet, 0)
	if locals == nil {
		locals = Vec(0)
	}
	return locals, c
}

// appendReadAll adds locals 1..n to local 0.
func appendReadAll(c []byte, n int) []byte {
	for i := range n {
		c = append(c, opLocalGet)
		c = append(c, U(uint32(i+1))...)
		c = append(c, opLocalGet, 0, opI32Add, opLocalSet, 0)
	}
	return c
}

// localDecl declares n i32 locals.
func localDecl(n int) []byte {
	return append(Vec(1, U(uint32(n))), tI32)
}

var typeI32I32 = Sec(1, Vec(1, []byte{0x60, 1, tI32, 1, tI32}))

func oneFunc(locals, code []byte) []byte {
	return Module(typeI32I32, Sec(3, Vec(1, U(0))), Sec(7, Vec(1, Str("f"), []byte{0}, U(0))),
		Sec(10, Vec(1, Body(locals, code...))))
}

// declaredModule is n functions (i32) -> i32 of 10 bytes each, each
// declaring 50,000 i32 locals (the rewrite's limit, with its scratch
// local) it never uses: compiled, each is code that zeroes them at entry.
func declaredModule(n int) []byte {
	var funcs, bodies []byte
	body := Body(Vec(1, U(49998), []byte{tI32}), opLocalGet, 0)
	for range n {
		funcs = append(funcs, 0)
		bodies = append(bodies, body...)
	}
	return Module(typeI32I32, Sec(3, Vec(n, funcs)), Sec(7, Vec(1, Str("f"), []byte{0}, U(0))),
		Sec(10, Vec(n, bodies)))
}

// arityModule's "f" pushes 1,000 values and passes them on n times: to
// a loop taking them, by n br_ifs back to it (brifArgs); to n calls in a
// row of "g", which takes and gives 1,000 values (callArgs); through n
// blocks in a row that take and give them (blockArgs). Each step is 2 or
// 3 bytes and moves or merges the 1,000 values.
func arityModule(name string, n int) []byte {
	const k = 1000
	i32s := append(U(k), bytes.Repeat([]byte{tI32}, k)...)
	wide := append(append([]byte{0x60}, i32s...), i32s...) // type 1: (k i32) -> (k i32)
	code := bytes.Repeat([]byte{opI32Const, 0}, k)
	switch name {
	case "brifArgs":
		code = append(code, opLoop, 1)
		code = append(code, bytes.Repeat([]byte{opLocalGet, 0, opBrIf, 0}, n)...)
		code = append(code, opEnd)
	case "callArgs":
		code = append(code, bytes.Repeat([]byte{opCall, 1}, n)...)
	case "blockArgs":
		code = append(code, bytes.Repeat([]byte{opBlock, 1, opEnd}, n)...)
	}
	code = append(code, bytes.Repeat([]byte{0x1a}, k-1)...) // drop all but one
	// g returns its parameters.
	var g []byte
	for i := range k {
		g = append(append(g, opLocalGet), U(uint32(i))...)
	}
	return Module(Sec(1, Vec(2, []byte{0x60, 1, tI32, 1, tI32}, wide)), Sec(3, Vec(2, U(0), U(1))), Sec(7, Vec(1, Str("f"), []byte{0}, U(0))),
		Sec(10, Vec(2, Body(Vec(0), code...), Body(Vec(0), g...))))
}

func funcsModule(n int) []byte {
	var funcs, bodies []byte
	body := Body(Vec(0), opLocalGet, 0, opI32Const, 1, opI32Add, opLocalGet, 0, opIf, tEmpty, opLocalGet, 0, opLocalSet, 0, opEnd)
	for range n {
		funcs = append(funcs, 0)
		bodies = append(bodies, body...)
	}
	return Module(typeI32I32, Sec(3, Vec(n, funcs)), Sec(7, Vec(1, Str("f"), []byte{0}, U(0))),
		Sec(10, Vec(n, bodies)))
}
