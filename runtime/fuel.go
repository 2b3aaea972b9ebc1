package runtime

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Fuel instrumentation (RATIONALE.md, "Why fuel instrumentation instead
// of WithCloseOnContextDone?"): each module is
// rewritten once, before it is compiled, so that its code counts down a
// budget and calls the host's wasmagent.tick when the budget runs out;
// tick ends the call if its context is done and otherwise refills the
// budget. Checks sit at the start of every loop body and at the entry of
// every function that contains a call (unless a loop header comes first,
// as in Go's compiled functions), so that neither loops nor call trees
// without loops escape a deadline, and the Go scheduler and garbage
// collector get a host call at least every fuelBudget checks.
//
// The rewrite appends a type () -> i64, an import wasmagent.tick of that
// type, a mutable i64 global (the budget) and one i64 scratch local per
// function; imported functions keep their indices and defined functions
// move up by one, so every function index is remapped: calls, ref.func,
// exports, the start function, element segments, constant expressions and
// the name section. Every index is checked against the module's own
// counts first, so an invalid module cannot become valid by naming what
// the rewrite adds; the instrumented module is then validated in full by
// wazero when it compiles. Anything the walker does not know fails closed.

// fuelBudget is the number of checks between two host calls: under 0.1%
// overhead, and a GC pause caused by a guest of about a third of a
// millisecond (measured in the prototype).
const fuelBudget = 1 << 16

// tickModule and tickName are the host function the rewrite imports.
const (
	tickModule = "wasmagent"
	tickName   = "tick"
)

var errNotWasm = errors.New("not a WebAssembly module (bad magic or version)")

// module facts gathered before rewriting.
type fuelInfo struct {
	nTypes         uint32
	typeParams     []uint32 // params per type (0 for non-function types)
	nImportedFuncs uint32
	nFuncs         uint32 // imported + defined
	nGlobals       uint32 // imported + defined
	funcTypes      []uint32
}

// newIndices of what the rewrite adds.
func (fi *fuelInfo) tickType() uint32     { return fi.nTypes }
func (fi *fuelInfo) tickFunc() uint32     { return fi.nImportedFuncs }
func (fi *fuelInfo) budgetGlobal() uint32 { return fi.nGlobals }

// remapFunc maps an original function index to its instrumented one.
func (fi *fuelInfo) remapFunc(i uint32) (uint32, error) {
	if i >= fi.nFuncs {
		return 0, fmt.Errorf("function index %d out of range (%d functions)", i, fi.nFuncs)
	}
	if i >= fi.nImportedFuncs {
		return i + 1, nil
	}
	return i, nil
}

// section ranks in the binary's required order.
var sectionRank = map[byte]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}

type section struct {
	id   byte
	body []byte
}

// instrument returns wasm with fuel checks added.
func instrument(wasm []byte) ([]byte, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" || string(wasm[4:8]) != "\x01\x00\x00\x00" {
		return nil, errNotWasm
	}
	var secs []section
	r := &reader{b: wasm, pos: 8}
	for r.more() {
		id := r.byte()
		size := r.u32()
		body := r.bytes(int(size))
		if r.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, r.err)
		}
		secs = append(secs, section{id, body})
	}
	fi := &fuelInfo{}
	if err := fi.gather(secs); err != nil {
		return nil, err
	}
	out := append([]byte(nil), wasm[:8]...)
	emitted := map[byte]bool{}
	emit := func(id byte, body []byte) {
		out = append(out, id)
		out = appendU32(out, uint32(len(body)))
		out = append(out, body...)
		emitted[id] = true
	}
	// Sections the rewrite must have even if the module has none.
	synth := []struct {
		id   byte
		body func() []byte
	}{
		{1, func() []byte { return appendTypes(nil, nil, 0) }},
		{2, func() []byte { return appendImports(nil, nil, 0, fi) }},
		{6, func() []byte { return appendGlobals(nil, nil, 0) }},
	}
	emitSynth := func(before int) {
		for _, s := range synth {
			if !emitted[s.id] && sectionRank[s.id] < before {
				emit(s.id, s.body())
			}
		}
	}
	for _, s := range secs {
		if s.id == 0 {
			name, _ := (&reader{b: s.body}).name()
			switch {
			case strings.HasPrefix(name, ".debug_") || name == "sourceMappingURL" || name == "external_debug_info":
				continue // code offsets change: drop what points into code
			case name == "name":
				body, err := fi.remapNames(s.body)
				if err != nil {
					continue // a name section is optional; a bad one is dropped
				}
				emit(0, body)
				continue
			}
			emit(0, s.body)
			continue
		}
		rank, ok := sectionRank[s.id]
		if !ok {
			return nil, fmt.Errorf("unknown section id %d", s.id)
		}
		emitSynth(rank)
		body, err := fi.rewrite(s)
		if err != nil {
			return nil, err
		}
		emit(s.id, body)
	}
	emitSynth(math.MaxInt)
	return out, nil
}

// gather reads the counts the rewrite needs.
func (fi *fuelInfo) gather(secs []section) error {
	for _, s := range secs {
		r := &reader{b: s.body}
		switch s.id {
		case 1:
			n := r.u32()
			for i := uint32(0); i < n && r.err == nil; i++ {
				params, err := skipType(r)
				if err != nil {
					return fmt.Errorf("type %d: %w", i, err)
				}
				fi.typeParams = append(fi.typeParams, params)
			}
			fi.nTypes = n
		case 2:
			n := r.u32()
			for i := uint32(0); i < n && r.err == nil; i++ {
				mod, _ := r.name()
				r.name()
				if mod == tickModule {
					return fmt.Errorf("imports from %q, which is reserved for the host", tickModule)
				}
				switch kind := r.byte(); kind {
				case 0x00:
					r.u32()
					fi.nImportedFuncs++
				case 0x01:
					skipTableType(r)
				case 0x02:
					skipLimits(r)
				case 0x03:
					r.byte()
					r.byte()
					fi.nGlobals++
				case 0x04:
					r.byte()
					r.u32()
				default:
					return fmt.Errorf("import %d: unknown kind %d", i, kind)
				}
			}
		case 3:
			n := r.u32()
			for i := uint32(0); i < n && r.err == nil; i++ {
				t := r.u32()
				if t >= fi.nTypes {
					return fmt.Errorf("function %d: type index %d out of range", i, t)
				}
				fi.funcTypes = append(fi.funcTypes, t)
			}
		case 6:
			fi.nGlobals += r.u32()
		}
		if r.err != nil {
			return fmt.Errorf("section %d: %w", s.id, r.err)
		}
	}
	fi.nFuncs = fi.nImportedFuncs + uint32(len(fi.funcTypes))
	return nil
}

func (fi *fuelInfo) rewrite(s section) ([]byte, error) {
	r := &reader{b: s.body}
	var out []byte
	var err error
	switch s.id {
	case 1:
		n := r.u32()
		out = appendTypes(nil, r.rest(), n)
	case 2:
		n := r.u32()
		out = appendImports(nil, r.rest(), n, fi)
	case 6:
		out, err = fi.rewriteGlobals(r)
	case 7:
		out, err = fi.rewriteExports(r)
	case 8:
		var f uint32
		if f, err = fi.remapFunc(r.u32()); err == nil {
			out = appendU32(nil, f)
		}
	case 9:
		out, err = fi.rewriteElements(r)
	case 11:
		out, err = fi.checkData(r)
	case 10:
		out, err = fi.rewriteCode(r)
	case 4:
		out, err = fi.checkTables(r)
	default:
		return s.body, nil
	}
	if err == nil && r.err != nil {
		err = r.err
	}
	if err == nil && s.id != 1 && s.id != 2 && r.more() {
		err = errors.New("trailing bytes")
	}
	if err != nil {
		return nil, fmt.Errorf("section %d: %w", s.id, err)
	}
	return out, nil
}

// appendTypes writes a type section: the n original entries, then () -> i64.
func appendTypes(out, entries []byte, n uint32) []byte {
	out = appendU32(out, n+1)
	out = append(out, entries...)
	return append(out, 0x60, 0x00, 0x01, 0x7e)
}

// appendImports writes an import section: the n originals, then tick.
func appendImports(out, entries []byte, n uint32, fi *fuelInfo) []byte {
	out = appendU32(out, n+1)
	out = append(out, entries...)
	out = appendName(out, tickModule)
	out = appendName(out, tickName)
	out = append(out, 0x00)
	return appendU32(out, fi.tickType())
}

// appendGlobals writes a global section: the originals, then the budget.
func appendGlobals(out, entries []byte, n uint32) []byte {
	out = appendU32(out, n+1)
	out = append(out, entries...)
	out = append(out, 0x7e, 0x01, 0x42)
	out = appendS64(out, fuelBudget)
	return append(out, 0x0b)
}

func (fi *fuelInfo) rewriteGlobals(r *reader) ([]byte, error) {
	n := r.u32()
	var entries []byte
	for i := uint32(0); i < n && r.err == nil; i++ {
		entries = append(entries, r.byte(), r.byte()) // valtype, mutability
		var err error
		if entries, err = fi.constExpr(r, entries); err != nil {
			return nil, fmt.Errorf("global %d: %w", i, err)
		}
	}
	return appendGlobals(nil, entries, n), nil
}

func (fi *fuelInfo) rewriteExports(r *reader) ([]byte, error) {
	n := r.u32()
	out := appendU32(nil, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		name, raw := r.name()
		out = append(out, raw...)
		kind := r.byte()
		idx := r.u32()
		if kind == 0x00 {
			var err error
			if idx, err = fi.remapFunc(idx); err != nil {
				return nil, fmt.Errorf("export %q: %w", name, err)
			}
		}
		out = append(out, kind)
		out = appendU32(out, idx)
	}
	return out, nil
}

func (fi *fuelInfo) rewriteElements(r *reader) ([]byte, error) {
	n := r.u32()
	out := appendU32(nil, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		flags := r.u32()
		out = appendU32(out, flags)
		var err error
		if flags > 7 {
			return nil, fmt.Errorf("element %d: unknown flags %d", i, flags)
		}
		if flags&2 != 0 && flags&1 == 0 { // explicit table index
			out = appendU32(out, r.u32())
		}
		if flags&1 == 0 { // active: offset expression
			if out, err = fi.constExpr(r, out); err != nil {
				return nil, fmt.Errorf("element %d offset: %w", i, err)
			}
		}
		if flags&3 != 0 { // elemkind or reftype
			out = append(out, r.byte())
		}
		count := r.u32()
		out = appendU32(out, count)
		for j := uint32(0); j < count && r.err == nil; j++ {
			if flags&4 == 0 {
				f, err := fi.remapFunc(r.u32())
				if err != nil {
					return nil, fmt.Errorf("element %d: %w", i, err)
				}
				out = appendU32(out, f)
			} else if out, err = fi.constExpr(r, out); err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
		}
	}
	return out, nil
}

// checkData checks the offset expressions of data segments (a global.get
// may not name the budget) and keeps the section as it is.
func (fi *fuelInfo) checkData(r *reader) ([]byte, error) {
	body := r.b
	n := r.u32()
	for i := uint32(0); i < n && r.err == nil; i++ {
		switch flags := r.u32(); flags {
		case 0, 2:
			if flags == 2 {
				r.u32()
			}
			if _, err := fi.constExpr(r, nil); err != nil {
				return nil, fmt.Errorf("data %d offset: %w", i, err)
			}
		case 1:
		default:
			return nil, fmt.Errorf("data %d: unknown flags %d", i, flags)
		}
		r.bytes(int(r.u32()))
	}
	return body, nil
}

// checkTables refuses table entries with initialiser expressions (a newer
// proposal this walker does not rewrite) and keeps the section.
func (fi *fuelInfo) checkTables(r *reader) ([]byte, error) {
	body := r.b
	n := r.u32()
	for i := uint32(0); i < n && r.err == nil; i++ {
		if r.peek() == 0x40 {
			return nil, fmt.Errorf("table %d: initialiser expressions are not supported", i)
		}
		skipTableType(r)
	}
	return body, nil
}

// constExpr copies a constant expression, remapping ref.func.
func (fi *fuelInfo) constExpr(r *reader, out []byte) ([]byte, error) {
	w := &walker{fi: fi, r: r, out: out, locals: 0, constant: true}
	for r.err == nil {
		op, err := w.instr()
		if err != nil {
			return nil, err
		}
		if op == 0x0b {
			return w.out, nil
		}
	}
	return nil, r.err
}

func (fi *fuelInfo) rewriteCode(r *reader) ([]byte, error) {
	n := r.u32()
	if int(n) != len(fi.funcTypes) {
		return nil, fmt.Errorf("%d function bodies for %d functions", n, len(fi.funcTypes))
	}
	out := appendU32(nil, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		size := r.u32()
		body := r.bytes(int(size))
		if r.err != nil {
			break
		}
		nb, err := fi.rewriteBody(body, fi.typeParams[fi.funcTypes[i]])
		if err != nil {
			return nil, fmt.Errorf("function %d: %w", fi.nImportedFuncs+i, err)
		}
		out = appendU32(out, uint32(len(nb)))
		out = append(out, nb...)
	}
	return out, nil
}

const maxLocals = 50000

func (fi *fuelInfo) rewriteBody(body []byte, params uint32) ([]byte, error) {
	r := &reader{b: body}
	groups := r.u32()
	var decls []byte
	locals := uint64(params)
	for g := uint32(0); g < groups && r.err == nil; g++ {
		c := r.u32()
		t := r.byte()
		locals += uint64(c)
		if locals > maxLocals {
			return nil, fmt.Errorf("more than %d locals", maxLocals)
		}
		decls = appendU32(decls, c)
		decls = append(decls, t)
	}
	if r.err != nil {
		return nil, r.err
	}
	scratch := uint32(locals)
	w := &walker{fi: fi, r: r, locals: scratch, scratch: scratch, checks: true}
	depth := 1
	for depth > 0 {
		if !r.more() {
			return nil, errors.New("the body ends before its end instruction")
		}
		op, err := w.instr()
		if err != nil {
			return nil, err
		}
		switch op {
		case 0x02, 0x03, 0x04, 0x06:
			depth++
		case 0x0b:
			depth--
		}
	}
	if r.more() {
		return nil, errors.New("bytes after the end of the body")
	}
	out := appendU32(nil, groups+1)
	out = append(out, decls...)
	out = append(out, 0x01, 0x7e) // the scratch local
	if w.sawCall && !w.loopFirst {
		out = fi.appendCheck(out, scratch)
	}
	return append(out, w.out...), nil
}

// appendCheck writes the fuel check: budget--, and tick when it hits 0
// (there is no global.tee, hence the scratch local).
func (fi *fuelInfo) appendCheck(out []byte, scratch uint32) []byte {
	g := fi.budgetGlobal()
	out = append(out, 0x23)
	out = appendU32(out, g)
	out = append(out, 0x42, 0x01, 0x7d, 0x22)
	out = appendU32(out, scratch)
	out = append(out, 0x24)
	out = appendU32(out, g)
	out = append(out, 0x20)
	out = appendU32(out, scratch)
	out = append(out, 0x50, 0x04, 0x40, 0x10)
	out = appendU32(out, fi.tickFunc())
	out = append(out, 0x24)
	out = appendU32(out, g)
	return append(out, 0x0b)
}
