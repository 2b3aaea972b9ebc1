package runtime

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
	g "github.com/wasmagent/wasmagent/runtime/internal/wasmgen"
)

// declaration is one kind of declaration declared.go caps: its cap, what
// the refusal calls it, and how a module declares n of them.
type declaration struct {
	what string // as the refusal names it
	cap  int
	add  func(m *declaredModule, n int)
}

var declarations = []declaration{
	{"tables", MaxTables, func(m *declaredModule, n int) { m.tables = append(m.tables, make([]uint32, n)...) }},
	{"table elements at start, all tables together", MaxTableElements, func(m *declaredModule, n int) {
		// Spread over two tables, each within the per-table limit.
		m.tables = append(m.tables, uint32(n/2), uint32(n-n/2))
	}},
	{"globals", MaxGlobals, func(m *declaredModule, n int) { m.globals = n }},
	{"element segments", MaxElementSegments, func(m *declaredModule, n int) { m.segments = n }},
	{"element segment entries, all segments together", MaxElements, func(m *declaredModule, n int) { m.entries = n }},
	{"imports", MaxImports, func(m *declaredModule, n int) { m.imports = n }},
	{"exports", MaxExports, func(m *declaredModule, n int) { m.exports = max(n-1, 0) }},    // and "run"
	{"function types", MaxTypes, func(m *declaredModule, n int) { m.types = max(n-2, 0) }}, // and the two used
	{"data segments", MaxDataSegments, func(m *declaredModule, n int) { m.data = n }},
}

// declaredModule is a module exporting "run" (() -> i32, returns 0) with
// the declarations counted.
type declaredModule struct {
	tables            []uint32 // the minimum of each
	globals, segments int      // segments: empty passive ones
	entries           int      // in one passive segment
	imports, exports  int      // exports besides "run"
	types             int      // besides the two used
	data              int      // empty passive data segments
}

func (m declaredModule) wasm() []byte {
	types := g.Sec(1, g.Vec(2+m.types, []byte{0x60, 0, 1, 0x7f}, []byte{0x60, 0, 1, 0x7e}, bytes.Repeat([]byte{0x60, 0, 0}, m.types)))
	var imports, tables, globals, exports, elems []byte
	imports = bytes.Repeat(append(append(g.Str("extism:host/env"), g.Str("input_length")...), 0x00, 0x01), m.imports)
	run := g.U(uint32(m.imports)) // the one defined function
	for _, min := range m.tables {
		tables = append(append(tables, 0x70, 0x00), g.U(min)...)
	}
	globals = bytes.Repeat([]byte{0x7f, 0x00, 0x41, 0x00, 0x0b}, m.globals)
	exports = append(append(append(exports, g.Str("run")...), 0x00), run...)
	for i := range m.exports {
		exports = append(append(append(exports, g.Str("e"+strconv.Itoa(i))...), 0x00), run...)
	}
	nelems := m.segments
	elems = bytes.Repeat([]byte{0x01, 0x00, 0x00}, m.segments)
	if m.entries > 0 {
		nelems++
		elems = append(append(elems, 0x01, 0x00), g.U(uint32(m.entries))...)
		elems = append(elems, bytes.Repeat(run, m.entries)...)
	}
	secs := [][]byte{types}
	if m.imports > 0 {
		secs = append(secs, g.Sec(2, g.Vec(m.imports, imports)))
	}
	secs = append(secs, g.Sec(3, g.Vec(1, g.U(0))))
	if len(m.tables) > 0 {
		secs = append(secs, g.Sec(4, g.Vec(len(m.tables), tables)))
	}
	if m.data > 0 {
		secs = append(secs, g.Sec(5, g.Vec(1, []byte{0x00, 0x01})))
	}
	if m.globals > 0 {
		secs = append(secs, g.Sec(6, g.Vec(m.globals, globals)))
	}
	secs = append(secs, g.Sec(7, g.Vec(1+m.exports, exports)))
	if nelems > 0 {
		secs = append(secs, g.Sec(9, g.Vec(nelems, elems)))
	}
	if m.data > 0 {
		secs = append(secs, g.Sec(12, g.U(uint32(m.data))))
	}
	secs = append(secs, g.Sec(10, g.Vec(1, g.Body(g.U(0), 0x41, 0x00))))
	if m.data > 0 {
		secs = append(secs, g.Sec(11, g.Vec(m.data, bytes.Repeat([]byte{0x01, 0x00}, m.data))))
	}
	return g.Module(secs...)
}

// Every kind of declaration an instance holds a copy of is capped at
// load: at its cap a module passes, one more is refused before wazero
// sees it, with a message naming the count, the cap and the constant.
// Generated modules mix the kinds, each drawn below, at or just over its
// cap: a module is refused exactly when one of its counts is over.
// (On the old main all were accepted: two tables of 2^20 elements, 10
// bytes, cost every instance 16 MiB; 1,000 tables, 8 GiB.)
func TestDeclarationsAreBounded(t *testing.T) {
	ctx := context.Background()
	r, err := New(ctx, Options{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	for _, d := range declarations {
		var at, over declaredModule
		d.add(&at, d.cap)
		d.add(&over, d.cap+1)
		if _, _, err := r.checkLimits(at.wasm()); err != nil {
			t.Errorf("%s at the cap (%d): %v", d.what, d.cap, err)
		}
		_, err := r.Compile(ctx, "m.wasm", over.wasm())
		if want := fmt.Sprintf("m.wasm: declares %d %s, more than the host's limit of %d (runtime.", d.cap+1, d.what, d.cap); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s over the cap: %v, want %q", d.what, err, want)
		}
	}
}

// The caps judge counts alone: generated counts, each drawn below, at or
// just over its cap, are refused exactly when one is over, naming the
// first that is. (That ReadFacts counts a module's declarations right is
// wasmbin's TestReadFactsCounts and FuzzReadFacts.)
func TestDeclarationCapsJudgeEveryCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 16))
	draw := func(cap int) (int, bool) {
		switch rng.IntN(3) {
		case 0:
			return rng.IntN(cap + 1), false
		case 1:
			return cap, false
		}
		return cap + 1 + rng.IntN(cap), true
	}
	for range 2000 {
		var c wasmbin.Counts
		var n [9]int
		var over [9]bool
		for i, d := range declarations {
			if rng.IntN(2) == 0 {
				n[i], over[i] = draw(d.cap)
			}
		}
		tables := n[0]
		c.TableElements, c.Globals, c.ElementSegments = uint64(n[1]), n[2], n[3]
		c.Elements, c.Imports, c.Exports = uint64(n[4]), n[5], n[6]
		c.DataSegments = n[8]
		err := checkDeclarations(c, tables, n[7])
		first := slices.Index(over[:], true)
		if first < 0 {
			if err != nil {
				t.Fatalf("%+v, %d tables: %v", c, tables, err)
			}
			continue
		}
		d := declarations[first]
		if want := fmt.Sprintf("declares %d %s, more than the host's limit of %d", n[first], d.what, d.cap); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("%+v, %d tables: %v, want %q", c, tables, err, want)
		}
	}
}

// A module with every declaration at its cap costs an instance a bounded
// amount of host memory besides its linear memory (SECURITY.md, row 3):
// the allocations of one call, instantiation included, are measured.
// Run without -race (its shadow memory is not what the bound is about).
func TestDeclaredStateMemoryBound(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's allocations are not what the bound is about")
	}
	const bound = 24 << 20 // SECURITY.md, row 3: an instance's declarations
	var m declaredModule
	m.tables = append(make([]uint32, MaxTables-1), MaxTableElements)
	m.globals, m.segments, m.entries = MaxGlobals, MaxElementSegments-1, MaxElements
	m.imports, m.exports, m.types = MaxImports, MaxExports-1, MaxTypes-2
	m.data = MaxDataSegments
	ctx := context.Background()
	r, err := New(ctx, Options{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	mod, err := r.Compile(ctx, "declared.wasm", m.wasm())
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.NewPlugin(mod, PluginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Call(ctx, "run", nil, nil); err != nil {
		t.Fatal(err) // once, for what is made once
	}
	// The least of three calls: the count is the process's, and another
	// test's goroutines may allocate meanwhile.
	got := uint64(math.MaxUint64)
	for range 3 {
		var a, b goruntime.MemStats
		goruntime.ReadMemStats(&a)
		if _, err := p.Call(ctx, "run", nil, nil); err != nil {
			t.Fatal(err)
		}
		goruntime.ReadMemStats(&b)
		got = min(got, b.TotalAlloc-a.TotalAlloc)
	}
	t.Logf("a call of a module with every declaration at its cap (%d bytes) allocates %.1f MiB", len(m.wasm()), float64(got)/(1<<20))
	if got > bound {
		t.Fatalf("a call allocates %d MiB, over the bound of %d MiB", got>>20, bound>>20)
	}
}

// Imports are checked before the module is compiled, and the refusal
// lists a few, cut: a module chooses how many it imports and how wide
// their types are. On the old main, 2,000 imports of alloc typed
// (1,000 i32) -> (1,000 i32), a 48 KB module, were compiled first, then
// refused with a message of 24 MB (30,000 of them: 5 s, then 360 MB).
func TestImportsCheckedBeforeCompiling(t *testing.T) {
	const k, n = 1000, 2000
	i32s := append(g.U(k), bytes.Repeat([]byte{0x7f}, k)...)
	wide := append(append([]byte{0x60}, i32s...), i32s...)
	imp := append(append(g.Str("extism:host/env"), g.Str("alloc")...), 0x00, 0x01)
	wasm := g.Module(g.Sec(1, g.Vec(2, []byte{0x60, 0, 1, 0x7f}, wide)), g.Sec(2, g.Vec(n, bytes.Repeat(imp, n))),
		g.Sec(3, g.Vec(1, g.U(0))), g.Sec(10, g.Vec(1, g.Body(g.U(0), 0x41, 0x00))))
	ctx := context.Background()
	r, err := New(ctx, Options{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	_, err = r.Compile(ctx, "wide.wasm", wasm)
	if err == nil || !strings.HasPrefix(err.Error(), "wide.wasm: imports extism:host/env.alloc as (i32, i32") || !strings.HasSuffix(err.Error(), fmt.Sprintf(" and %d more", n-maxListed)) {
		t.Fatalf("err = %.300v", err)
	}
	if len(err.Error()) > 2*MaxMessageBytes {
		t.Fatalf("the refusal is %d bytes", len(err.Error()))
	}
}

// A module of more than MaxSections sections is refused before its
// sections are listed whole, naming the cap; at the cap it passes. On
// the old main a module of 16 MiB of empty custom sections (3 bytes
// each) made the host allocate 3 GB and take 10 s listing them, three
// times over, before anything was checked; here one of 4 MiB allocates
// almost nothing.
func TestSectionsAreBounded(t *testing.T) {
	ctx := context.Background()
	r, err := New(ctx, Options{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	module := func(customs int) []byte {
		base := g.Module(g.Sec(1, g.Vec(1, []byte{0x60, 0, 1, 0x7f})), g.Sec(3, g.Vec(1, g.U(0))),
			g.Sec(7, g.Vec(1, g.Str("run"), []byte{0}, g.U(0))), g.Sec(10, g.Vec(1, g.Body(g.U(0), 0x41, 0x00))))
		return append(base, bytes.Repeat([]byte{0, 1, 0}, customs)...) // empty custom sections
	}
	if _, err := r.Compile(ctx, "at.wasm", module(MaxSections-4)); err != nil {
		t.Fatalf("%d sections: %v", MaxSections, err)
	}
	_, err = r.Compile(ctx, "over.wasm", module(MaxSections-3))
	if want := "over.wasm: has more than 1024 sections, custom ones included: over the host's limit (runtime.MaxSections)"; err == nil || err.Error() != want {
		t.Fatalf("%d sections: %v, want %q", MaxSections+1, err, want)
	}
	if raceEnabled {
		return // (the race detector's allocations are not what the bound is about)
	}
	big := module(4 << 20 / 3)
	var a, b goruntime.MemStats
	goruntime.ReadMemStats(&a)
	_, err = r.Compile(ctx, "big.wasm", big)
	goruntime.ReadMemStats(&b)
	got := b.TotalAlloc - a.TotalAlloc
	t.Logf("a module of %d MiB of empty custom sections: %v; %d KiB allocated", len(big)>>20, err, got>>10)
	if err == nil || got > 1<<20 {
		t.Fatalf("a module of %d MiB of empty custom sections: %v, %d KiB allocated; want it refused, with under 1 MiB allocated", len(big)>>20, err, got>>10)
	}
}

// A vector of declarations far over its cap (function types, tables,
// imports, exports) is refused by its count, before its entries are
// read: each costs the host tens of bytes once read, for 2 to 6 in the
// file. On the old main each vector of 4 MiB was read whole before its
// count was judged: function types 322 MiB allocated (and 2 s), tables
// 623 MiB, exports 132 MiB, imports 31 MiB; now under 2 KiB each.
func TestOverCapVectorsAreNotRead(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's allocations are not what the bound is about")
	}
	ctx := context.Background()
	r, err := New(ctx, Options{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	const size = 4 << 20
	typ := []byte{0x60, 0, 0}
	imp := append(append(g.Str("extism:host/env"), g.Str("input_length")...), 0x00, 0x00)
	for _, c := range []struct {
		what string
		n    int
		wasm []byte
	}{
		{"function types", size / 3, g.Module(g.Sec(1, g.Vec(size/3, bytes.Repeat(typ, size/3))))},
		{"tables", size / 3, g.Module(g.Sec(4, g.Vec(size/3, bytes.Repeat([]byte{0x70, 0x00, 0x00}, size/3))))},
		{"imports", size / len(imp), g.Module(g.Sec(1, g.Vec(1, typ)), g.Sec(2, g.Vec(size/len(imp), bytes.Repeat(imp, size/len(imp)))))},
		{"exports", size / 3, g.Module(g.Sec(1, g.Vec(1, typ)), g.Sec(3, g.Vec(1, g.U(0))), g.Sec(7, g.Vec(size/3, bytes.Repeat([]byte{0, 0, 0}, size/3))), g.Sec(10, g.Vec(1, g.Body(g.U(0)))))},
	} {
		var a, b goruntime.MemStats
		goruntime.ReadMemStats(&a)
		_, err := r.Compile(ctx, "m.wasm", c.wasm)
		goruntime.ReadMemStats(&b)
		got := b.TotalAlloc - a.TotalAlloc
		t.Logf("%d %s in %d MiB: %d KiB allocated", c.n, c.what, len(c.wasm)>>20, got>>10)
		if want := fmt.Sprintf("m.wasm: declares %d %s, more than", c.n, c.what); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%d %s: %v, want %q", c.n, c.what, err, want)
		}
		if got > 1<<20 {
			t.Errorf("%d %s: %d KiB allocated refusing them, want under 1 MiB", c.n, c.what, got>>10)
		}
	}
}
