package wasmgen

import (
	"fmt"
	"math/rand/v2"
)

// Generated is a module made by Gen, with how to call it: every name in
// Exports is a function (i32) -> i32, called with Arg.
type Generated struct {
	Wasm    []byte
	Exports []string
	Arg     uint64
	// Terminates is true when the module ends on every input by
	// construction (bounded loops, recursion on a decreasing argument).
	Terminates bool
}

// Gen builds a random valid module from seed, the way Wasmtime's fuzzing
// uses wasm-smith, from structured pieces: nested blocks, if/else on
// constant and computed conditions, dead code after br, return and
// unreachable (loops included), loops that never run (some first in code
// order), br_table, direct, indirect and tail calls, recursion, calls of
// a host function (env.host) in loops, a function with two results,
// tables changed at run time, a memory and several tables, exported or
// not; bulk memory and table instructions, table.grow included.
//
// A hostile module (hostile true) may also loop forever, recurse without
// end, or run a call tree of 2^Arg calls; it never terminates by
// construction. tail enables return_call (wazero needs its experimental
// tail-call feature to compile such modules).
func Gen(seed uint64, hostile, tail bool) Generated {
	g := &gen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), hostile: hostile, tail: tail}
	return g.module()
}

const (
	tyF    = 0 // (i32) -> i32: every generated function
	tyPair = 1 // (i32) -> (i32, i32)
	fnHost = 0 // the imported env.host

	localN   = 0 // the parameter: the recursion budget
	localAcc = 1
	localCtr = 2 // loop counters, one per loop nesting level
	maxLoops = 3
)

type gen struct {
	rng     *rand.Rand
	hostile bool
	tail    bool
	tree    bool // hostile: a call tree, no loop that runs, loops first in code order that never run

	nFuncs   int   // defined functions of type tyF: indices 1..nFuncs
	tables   []int // sizes
	memory   bool
	pairFunc uint32
	code     []byte
	labels   int // enclosing labels inside the current body
	loops    int // enclosing loops (counter locals in use)
	stmts    int // statements left for the current body
}

func (g *gen) n(k int) int       { return g.rng.IntN(k) }
func (g *gen) chance(p int) bool { return g.rng.IntN(100) < p }
func (g *gen) op(b ...byte)      { g.code = append(g.code, b...) }
func (g *gen) u(v uint32)        { g.code = append(g.code, U(v)...) }
func (g *gen) i32(v int32)       { g.op(0x41); g.code = append(g.code, S(int64(v))...) }

func (g *gen) module() Generated {
	g.tree = g.hostile && g.chance(50)
	g.nFuncs = 1 + g.n(5)
	g.pairFunc = uint32(g.nFuncs + 1)
	for range 1 + g.n(3) {
		g.tables = append(g.tables, 1+g.n(4))
	}
	g.memory = g.chance(70)

	types := Sec(1, Vec(2, []byte{0x60, 1, I32, 1, I32}, []byte{0x60, 1, I32, 2, I32, I32}))
	imports := Sec(2, Vec(1, Str("env"), Str("host"), []byte{0x00}, U(tyF)))
	var fdecl [][]byte
	for range g.nFuncs {
		fdecl = append(fdecl, U(tyF))
	}
	fdecl = append(fdecl, U(tyPair))
	funcs := Sec(3, Vec(len(fdecl), fdecl...))

	var tabs [][]byte
	for _, size := range g.tables {
		t := []byte{0x70, 0x00}
		if g.chance(50) {
			t = []byte{0x70, 0x01}
			t = append(t, U(uint32(size))...)
			t = append(t, U(uint32(size+g.n(3)))...)
		} else {
			t = append(t, U(uint32(size))...)
		}
		tabs = append(tabs, t)
	}
	sections := [][]byte{types, imports, funcs, Sec(4, Vec(len(tabs), tabs...))}
	if g.memory {
		sections = append(sections, Sec(5, Vec(1, []byte{0x01, 0x01, 0x02})))
	}
	sections = append(sections, Sec(6, Vec(1, []byte{I32, 0x01, 0x41, 0x00, 0x0b})))

	// Exports: the entry f1, some other functions, and maybe the memory,
	// the global and a table.
	names := []string{"f1"}
	exps := [][]byte{append(Str("f1"), 0x00, 0x01)}
	for f := 2; f <= g.nFuncs; f++ {
		if g.chance(40) {
			name := fmt.Sprintf("f%d", f)
			names = append(names, name)
			exps = append(exps, append(Str(name), append([]byte{0x00}, U(uint32(f))...)...))
		}
	}
	if g.memory && g.chance(50) {
		exps = append(exps, append(Str("memory"), 0x02, 0x00))
	}
	if g.chance(50) {
		exps = append(exps, append(Str("g"), 0x03, 0x00))
	}
	if g.chance(50) {
		exps = append(exps, append(Str("table"), 0x01, 0x00))
	}
	sections = append(sections, Sec(7, Vec(len(exps), exps...)))

	// Elements: each table filled with random functions; a declarative
	// segment of every function, for ref.func.
	var elems [][]byte
	for t, size := range g.tables {
		var e []byte
		if t == 0 {
			e = append(U(0), 0x41, 0x00, 0x0b)
		} else {
			e = append(append(U(2), U(uint32(t))...), 0x41, 0x00, 0x0b, 0x00)
		}
		var fs [][]byte
		for range size {
			fs = append(fs, U(uint32(1+g.n(g.nFuncs))))
		}
		elems = append(elems, append(e, Vec(size, fs...)...))
	}
	var all [][]byte
	for f := 1; f <= g.nFuncs; f++ {
		all = append(all, U(uint32(f)))
	}
	elems = append(elems, append([]byte{0x03, 0x00}, Vec(len(all), all...)...))
	sections = append(sections, Sec(9, Vec(len(elems), elems...)))

	var bodies [][]byte
	for range g.nFuncs {
		bodies = append(bodies, g.body())
	}
	bodies = append(bodies, g.pairBody())
	sections = append(sections, Sec(10, Vec(len(bodies), bodies...)))

	arg := uint64(1 + g.n(3))
	if g.hostile {
		arg = 30 + uint64(g.n(10))
	}
	return Generated{Wasm: Module(sections...), Exports: names, Arg: arg, Terminates: !g.hostile}
}

// body is a function (n i32) -> i32 over locals acc and loop counters.
func (g *gen) body() []byte {
	g.code, g.labels, g.loops = nil, 0, 0
	g.stmts = 4 + g.n(8)
	switch {
	case g.tree && g.chance(70), g.chance(10):
		g.deadLoop() // a loop first in code order, which never runs
	case g.chance(30):
		g.loopFirst() // the entry check may be left out: a loop header runs first
	}
	for g.stmts > 0 {
		g.stmt()
	}
	g.op(0x20, localAcc)
	return Body([]byte{0x01, 1 + maxLoops, I32}, g.code...)
}

// pairBody is (x) -> (x + host(x), x * 3), leaving through br to the
// function label with two values when x is odd.
func (g *gen) pairBody() []byte {
	code := []byte{
		0x20, 0x00, 0x20, 0x00, 0x10, fnHost, 0x6a, // x + host(x)
		0x20, 0x00, 0x41, 0x03, 0x6c, // x * 3
		0x20, 0x00, 0x41, 0x01, 0x71, 0x0d, 0x00, // br_if 0 when x is odd
	}
	return Body(U(0), code...)
}

// stmt writes one statement: no net effect on the operand stack.
func (g *gen) stmt() {
	g.stmts--
	deep := g.labels > 6 // keep nesting bounded
	switch k := g.n(100); {
	case k < 14 || deep:
		g.arith()
	case k < 20:
		g.op(0x20, localAcc, 0x23, 0x00, 0x6a, 0x24, 0x00) // g += acc
	case k < 26 && g.memory:
		addr := int32(4 * g.n(64))
		g.i32(addr)
		g.op(0x20, localAcc, 0x36, 0x02, 0x00) // i32.store
		g.op(0x20, localAcc)
		g.i32(int32(4 * g.n(64)))
		g.op(0x28, 0x02, 0x00, 0x6a, 0x21, localAcc) // acc += load
	case k < 34:
		g.op(0x20, localAcc, 0x10, fnHost, 0x21, localAcc) // acc = host(acc)
	case k < 44:
		g.guardedCall(func() { g.op(0x10); g.u(uint32(1 + g.n(g.nFuncs))) })
	case k < 50:
		t := g.n(len(g.tables))
		slot := int32(g.n(g.tables[t]))
		g.guardedCall(func() {
			g.i32(slot)
			g.op(0x11, tyF)
			g.u(uint32(t))
		})
	case k < 54:
		t := g.n(len(g.tables))
		g.i32(int32(g.n(g.tables[t])))
		g.op(0xd2)
		g.u(uint32(1 + g.n(g.nFuncs)))
		g.op(0x26)
		g.u(uint32(t)) // table.set: the table changes at run time
	case k < 56:
		g.bulk()
	case k < 58:
		g.op(0x20, localAcc, 0x10)
		g.u(g.pairFunc)
		g.op(0x6a, 0x21, localAcc) // acc = a + b
	case k < 66:
		g.block()
	case k < 74:
		g.ifElse()
	case k < 82:
		g.loop()
	case k < 86:
		g.deadLoop()
	case k < 90:
		g.brTable()
	case k < 94:
		g.exit()
	case k < 97 && g.tail:
		g.op(0x20, localN, 0x04, 0x40) // if n
		g.op(0x20, localN)
		if !g.hostile || g.chance(50) {
			g.op(0x41, 0x01, 0x6b)
		}
		g.op(0x12)
		g.u(uint32(1 + g.n(g.nFuncs)))
		g.op(0x0b)
	default:
		g.dead()
	}
}

func (g *gen) arith() {
	ops := []byte{0x6a, 0x6b, 0x6c, 0x73, 0x77} // add sub mul xor rotl
	g.op(0x20, localAcc)
	g.i32(int32(g.rng.Uint32()))
	g.op(ops[g.n(len(ops))], 0x21, localAcc)
}

// guardedCall: acc += callee(n - 1) when n > 0. Hostile modules
// sometimes pass n itself (recursion without end) and call twice (a call
// tree of 2^n calls).
func (g *gen) guardedCall(callee func()) {
	times := 1
	if g.tree || g.hostile && g.chance(50) {
		times = 2
	}
	g.op(0x20, localN, 0x04, 0x40) // if n
	g.labels++
	for range times {
		g.op(0x20, localAcc, 0x20, localN)
		if !g.hostile || g.chance(80) {
			g.op(0x41, 0x01, 0x6b)
		}
		callee()
		g.op(0x6a, 0x21, localAcc)
	}
	g.labels--
	g.op(0x0b)
}

func (g *gen) nested(n int) {
	for range n {
		if g.stmts <= 0 {
			return
		}
		g.stmt()
	}
}

// block: statements, a br_if out on a computed condition, statements.
func (g *gen) block() {
	g.op(0x02, 0x40)
	g.labels++
	g.nested(1 + g.n(2))
	g.op(0x20, localAcc, 0x41, 0x01, 0x71, 0x0d, 0x00)
	g.nested(1 + g.n(2))
	g.labels--
	g.op(0x0b)
}

func (g *gen) cond() {
	if g.chance(40) {
		g.i32(int32(g.n(2))) // a constant condition
		return
	}
	g.op(0x20, localAcc)
	g.i32(int32(g.rng.Uint32()))
	g.op(0x49) // i32.lt_u
}

func (g *gen) ifElse() {
	g.cond()
	g.op(0x04, 0x40)
	g.labels++
	g.nested(1 + g.n(2))
	if g.chance(60) {
		g.op(0x05)
		g.nested(1 + g.n(2))
	}
	g.labels--
	g.op(0x0b)
}

// loop runs its body k times (hostile: maybe forever). A host call in
// the body is likely.
func (g *gen) loop() {
	if g.tree {
		g.deadLoop()
		return
	}
	if g.loops >= maxLoops {
		g.arith()
		return
	}
	ctr := byte(localCtr + g.loops)
	forever := g.hostile && g.chance(30)
	g.i32(int32(1 + g.n(3)))
	g.op(0x21, ctr, 0x03, 0x40)
	g.labels++
	g.loops++
	if g.chance(50) {
		g.op(0x20, localAcc, 0x10, fnHost, 0x21, localAcc)
	}
	g.nested(1 + g.n(3))
	if forever {
		g.op(0x0c, 0x00)
	} else {
		g.op(0x20, ctr, 0x41, 0x01, 0x6b, 0x22, ctr, 0x0d, 0x00)
	}
	g.loops--
	g.labels--
	g.op(0x0b)
}

// loopFirst starts a body with a loop header reached before anything else
// (inside a block or not).
func (g *gen) loopFirst() {
	if g.chance(50) {
		g.op(0x02, 0x40)
		g.labels++
		g.loop()
		g.labels--
		g.op(0x0b)
		return
	}
	g.loop()
}

// deadLoop is a loop that never runs, first in code order or not: inside
// an if whose condition is 0, or after a br.
func (g *gen) deadLoop() {
	if g.tree || g.chance(50) {
		g.op(0x41, 0x00, 0x04, 0x40)
	} else {
		g.op(0x02, 0x40, 0x0c, 0x00)
	}
	g.labels++
	g.op(0x03, 0x40)
	g.labels++
	g.nested(1)
	g.op(0x0c, 0x00, 0x0b) // br 0: forever, if it ever ran
	g.labels -= 2
	g.op(0x0b)
}

// brTable: three nested blocks left through a br_table on acc & 3, with
// statements between their ends.
func (g *gen) brTable() {
	g.op(0x02, 0x40, 0x02, 0x40, 0x02, 0x40)
	g.labels += 3
	g.op(0x20, localAcc, 0x41, 0x03, 0x71, 0x0e, 0x03, 0x00, 0x01, 0x02)
	if g.hostile {
		g.u(uint32(g.n(g.labels))) // any enclosing label: a loop's is a back-edge
	} else {
		g.u(uint32(g.n(3)))
	}
	g.labels--
	g.op(0x0b)
	g.nested(1)
	g.labels--
	g.op(0x0b)
	g.nested(1)
	g.labels--
	g.op(0x0b)
}

// exit leaves the function on a computed condition: by return, or by br,
// br_table or br_if to the function's label.
func (g *gen) exit() {
	g.op(0x20, localAcc)
	g.i32(int32(g.rng.Uint32()))
	g.op(0x4b, 0x04, 0x40) // acc > c: if
	g.labels++
	g.op(0x20, localAcc)
	switch g.n(4) {
	case 0:
		g.op(0x0f) // return
	case 1:
		g.op(0x0c) // br to the function
		g.u(uint32(g.labels))
	case 2:
		g.op(0x20, localAcc, 0x0e, 0x00) // br_table [] to the function
		g.u(uint32(g.labels))
	default:
		g.op(0x20, localAcc, 0x41, 0x01, 0x71, 0x0d) // br_if to the function on acc & 1
		g.u(uint32(g.labels))
		g.op(0x1a) // drop
	}
	g.labels--
	g.op(0x0b)
}

// dead writes code after an unconditional br, return or unreachable
// (never run), or an unreachable in an if that is never taken.
func (g *gen) dead() {
	g.op(0x41, 0x00, 0x04, 0x40)
	g.labels++
	switch g.n(3) {
	case 0:
		g.op(0x00) // unreachable
	case 1:
		g.op(0x20, localAcc, 0x0f) // return
	default:
		g.op(0x0c, 0x00) // br
	}
	g.nested(1 + g.n(2))
	g.labels--
	g.op(0x0b)
}

// bulk writes a bulk-memory or table instruction: memory.fill or
// memory.copy within the first page, table.grow, table.size or table.fill
// within the table's initial size.
func (g *gen) bulk() {
	t := g.n(len(g.tables))
	switch k := g.n(5); {
	case k < 2 && g.memory:
		n := int32(g.n(1 << 12))
		g.i32(int32(g.n(1<<16 - int(n))))
		if k == 0 {
			g.op(0x20, localAcc)
			g.i32(n)
			g.op(0xfc, 11, 0x00) // memory.fill
		} else {
			g.i32(int32(g.n(1<<16 - int(n))))
			g.i32(n)
			g.op(0xfc, 10, 0x00, 0x00) // memory.copy
		}
	case k == 2:
		g.op(0xd0, 0x70)
		g.i32(int32(g.n(3)))
		g.op(0xfc, 15)
		g.u(uint32(t))
		g.op(0x20, localAcc, 0x6a, 0x21, localAcc) // acc += table.grow(null, k)
	case k == 3:
		g.op(0xfc, 16)
		g.u(uint32(t))
		g.op(0x20, localAcc, 0x6a, 0x21, localAcc) // acc += table.size
	default:
		g.i32(0)
		g.op(0xd2)
		g.u(uint32(1 + g.n(g.nFuncs)))
		g.i32(int32(g.n(g.tables[t] + 1)))
		g.op(0xfc, 17)
		g.u(uint32(t)) // table.fill
	}
}
