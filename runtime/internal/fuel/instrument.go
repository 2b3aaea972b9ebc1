package fuel

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
)

// Budget is what tick refills: the units of work (weight.go: about 8
// bytes of code each, 32 a call site) between two calls of tick. A tick
// costs about 37 ns, so this keeps its overhead far under 1% while a
// guest holds up the Go scheduler and GC for well under a millisecond
// (docs/abi.md, "How a module is rewritten at load").
const Budget = 1 << 16

// MaxTableElements is the default bound of table.grow.
const MaxTableElements = 1 << 20

// MaxCallDepth is the default call-depth limit: frames of functions that
// call, counted at their entry (see doc.go).
const MaxCallDepth = 1 << 16

// The host functions the rewrite imports. tick (() -> i64) ends the call
// if its context is done and otherwise returns the refill; exceeded (of
// the same type) never returns: it ends the call with the call-depth
// error. Every import module named ReservedModule, or starting with it and
// a colon, is refused in modules given to Instrument.
const (
	ReservedModule = "wasmagent"
	TickModule     = "wasmagent"
	TickName       = "tick"
	DepthModule    = "wasmagent:depth"
	DepthName      = "exceeded"
)

// Options tune the rewrite; the zero value means the defaults.
type Options struct {
	MaxCallDepth uint32 // 0 means MaxCallDepth
	// MaxTableElements bounds what table.grow may grow the module's
	// tables to: each its share, MaxTableElements divided by the number
	// of tables. A grow past it fails (returns -1) as one past the
	// table's maximum does. 0 means MaxTableElements.
	MaxTableElements uint32
	// NoCallDepth leaves the call-depth limit out, to measure its cost;
	// recursion then runs until wazero's call-stack ceiling.
	NoCallDepth bool
}

// info holds the module facts the rewrite needs, gathered first.
type info struct {
	maxDepth       uint32
	noDepth        bool
	types          []wasmbin.FuncType
	nTypes         uint32
	nImportedFuncs uint32
	nFuncs         uint32 // imported + defined
	nGlobals       uint32 // imported + defined
	funcTypes      []uint32
	importTypes    []uint32          // the type of each imported function
	blockTypes     map[string]uint32 // results → index of an added type () -> results
	addedTypes     []wasmbin.FuncType
	tableElems     []byte          // element type of each table, imported or defined
	writesTables   bool            // a function body may change a table (Report)
	growType       map[byte]uint32 // element type → index of an added type (ref) -> i32
	maxTable       uint32

	costs   []FuncCost     // each defined function's, in order (Report)
	cw      costWalk       // rewriteBody's
	bw      walker         // rewriteBody's, its buffers reused
	br      wasmbin.Reader // rewriteBody's
	bodyOut []byte         // rewriteBody's result, reused
	decls   []byte         // rewriteBody's local declarations, reused
}

// Indices of what the rewrite adds.
func (fi *info) tickType() uint32     { return fi.nTypes }
func (fi *info) tickFunc() uint32     { return fi.nImportedFuncs }
func (fi *info) depthFunc() uint32    { return fi.nImportedFuncs + 1 }
func (fi *info) budgetGlobal() uint32 { return fi.nGlobals }
func (fi *info) depthGlobal() uint32  { return fi.nGlobals + 1 }

const addedImports = 2

// remapFunc maps an original function index to its instrumented one.
func (fi *info) remapFunc(i uint32) (uint32, error) {
	if i >= fi.nFuncs {
		return 0, fmt.Errorf("function index %d out of range (%d functions)", i, fi.nFuncs)
	}
	if i >= fi.nImportedFuncs {
		return i + addedImports, nil
	}
	return i, nil
}

// Instrument returns wasm with fuel checks and the call-depth limit added
// (doc.go says where and why). It refuses, with an error saying where,
// anything it cannot rewrite safely: malformed integers, out-of-range
// indices, unknown instructions, imports of the reserved module.
func Instrument(wasm []byte, opts Options) ([]byte, error) {
	out, _, err := InstrumentReport(wasm, opts)
	return out, err
}

// Report is what the rewrite learned about the module's code on the way.
type Report struct {
	// WritesTables: some function may change a table (table.set,
	// table.grow, table.fill, table.copy, table.init or elem.drop), so a
	// copy of the module's memory and globals is not the whole of its
	// state.
	WritesTables bool
	// Costs measures each defined function's code, in order: what
	// makes compiling it slow (cost.go).
	Costs []FuncCost
}

// InstrumentReport is Instrument, and what it learned about the code.
func InstrumentReport(wasm []byte, opts Options) ([]byte, Report, error) {
	out, fi, err := instrument(wasm, opts)
	if err != nil {
		return nil, Report{}, err
	}
	return out, Report{WritesTables: fi.writesTables, Costs: fi.costs}, nil
}

func instrument(wasm []byte, opts Options) ([]byte, *info, error) {
	secs, err := wasmbin.Sections(wasm)
	if err != nil {
		return nil, nil, err
	}
	fi := &info{maxDepth: opts.MaxCallDepth, noDepth: opts.NoCallDepth, maxTable: opts.MaxTableElements,
		blockTypes: map[string]uint32{}, growType: map[byte]uint32{}}
	if fi.maxDepth == 0 {
		fi.maxDepth = MaxCallDepth
	}
	if fi.maxTable == 0 {
		fi.maxTable = MaxTableElements
	}
	if fi.maxDepth > math.MaxInt32 {
		return nil, nil, fmt.Errorf("call depth limit %d is over %d", fi.maxDepth, math.MaxInt32)
	}
	if err := fi.gather(secs); err != nil {
		return nil, nil, err
	}
	// The checks add a few percent: one allocation for most modules.
	out := make([]byte, 8, len(wasm)+len(wasm)/8+256)
	copy(out, wasm)
	emitted := map[byte]bool{}
	emit := func(id byte, body []byte) {
		out = wasmbin.AppendSection(out, id, body)
		emitted[id] = true
	}
	// Sections the rewrite must have even if the module has none.
	synth := []struct {
		id   byte
		body func() []byte
	}{
		{wasmbin.SecType, func() []byte { return fi.appendTypes(nil, 0) }},
		{wasmbin.SecImport, func() []byte { return fi.appendImports(nil, 0) }},
		{wasmbin.SecGlobal, func() []byte { return fi.appendGlobals(nil, 0) }},
	}
	emitSynth := func(before int) {
		for _, s := range synth {
			if !emitted[s.id] && wasmbin.SectionRank[s.id] < before {
				emit(s.id, s.body())
			}
		}
	}
	last := 0
	for _, s := range secs {
		if s.ID == wasmbin.SecCustom {
			body, keep, err := fi.custom(s.Body)
			if err != nil {
				return nil, nil, err
			}
			if keep {
				emit(0, body)
			}
			continue
		}
		rank, ok := wasmbin.SectionRank[s.ID]
		if !ok {
			return nil, nil, fmt.Errorf("unknown section id %d", s.ID)
		}
		if rank <= last {
			return nil, nil, fmt.Errorf("section %d is out of order or repeated", s.ID)
		}
		last = rank
		emitSynth(rank)
		body, err := fi.rewrite(s)
		if err != nil {
			return nil, nil, err
		}
		emit(s.ID, body)
	}
	emitSynth(math.MaxInt)
	return out, fi, nil
}

// custom keeps the name section, remapped, and drops every other custom
// section: debug sections point into code whose offsets change, and the
// runtime reads no other (wazero runs with custom sections off). A custom
// section without a valid name, or a malformed name section, is refused:
// dropping what wazero would refuse would launder the module.
func (fi *info) custom(body []byte) ([]byte, bool, error) {
	r := wasmbin.NewReader(body)
	name, _ := r.Name()
	switch {
	case r.Err != nil || !utf8.ValidString(name):
		return nil, false, fmt.Errorf("custom section: no valid name")
	case name != "name":
		return nil, false, nil
	}
	nb, err := fi.remapNames(body)
	if err != nil {
		return nil, false, fmt.Errorf("name section: %w", err)
	}
	return nb, true, nil
}

// gather reads the counts the rewrite needs, checking every index it
// copies unchanged against the module's own counts.
func (fi *info) gather(secs []wasmbin.Section) error {
	for _, s := range secs {
		r := wasmbin.NewReader(s.Body)
		var err error
		switch s.ID {
		case wasmbin.SecType:
			n := r.U32()
			for i := uint32(0); i < n && r.Err == nil; i++ {
				t, terr := r.ReadFuncType()
				if terr != nil {
					return fmt.Errorf("type %d: %w", i, terr)
				}
				fi.types = append(fi.types, t)
			}
			fi.nTypes = n
		case wasmbin.SecImport:
			err = fi.gatherImports(r)
		case wasmbin.SecFunction:
			n := r.U32()
			for i := uint32(0); i < n && r.Err == nil; i++ {
				t := r.U32()
				if t >= fi.nTypes {
					return fmt.Errorf("function %d: type index %d out of range", i, t)
				}
				fi.funcTypes = append(fi.funcTypes, t)
				fi.blockTypeFor(t)
			}
		case wasmbin.SecTable:
			n := r.U32()
			for i := uint32(0); i < n && r.Err == nil; i++ {
				elem, _ := r.ReadTableType()
				fi.addTable(elem)
			}
		case wasmbin.SecGlobal:
			fi.nGlobals += r.U32()
			r.Rest() // read in full by rewriteGlobals
		default:
			continue
		}
		if err == nil {
			err = r.Err
		}
		if err == nil && r.More() {
			// The type and import sections are copied with what follows
			// their entries: extra bytes there would come to read as
			// entries once the counts grow.
			err = fmt.Errorf("trailing bytes")
		}
		if err != nil {
			return fmt.Errorf("section %d: %w", s.ID, err)
		}
	}
	fi.nFuncs = fi.nImportedFuncs + uint32(len(fi.funcTypes))
	return nil
}

func (fi *info) gatherImports(r *wasmbin.Reader) error {
	n := r.U32()
	for i := uint32(0); i < n && r.Err == nil; i++ {
		mod, _ := r.Name()
		r.Name()
		if mod == ReservedModule || strings.HasPrefix(mod, ReservedModule+":") {
			return fmt.Errorf("import %d: imports from %q, which is reserved for the host", i, mod)
		}
		switch kind := r.Byte(); kind {
		case wasmbin.KindFunc, wasmbin.KindTag:
			if kind == wasmbin.KindTag {
				r.Byte() // attribute
			}
			t := r.U32()
			if t >= fi.nTypes && r.Err == nil {
				return fmt.Errorf("import %d: type index %d out of range", i, t)
			}
			if kind == wasmbin.KindFunc {
				fi.nImportedFuncs++
				fi.importTypes = append(fi.importTypes, t)
			}
		case wasmbin.KindTable:
			elem, _ := r.ReadTableType()
			fi.addTable(elem)
		case wasmbin.KindMemory:
			r.ReadLimits()
		case wasmbin.KindGlobal:
			r.Byte()
			r.Byte()
			fi.nGlobals++
		default:
			return fmt.Errorf("import %d: unknown kind %d", i, kind)
		}
	}
	return nil
}

// addTable records a table's element type, and adds the type (ref) -> i32
// that guards its table.grow.
func (fi *info) addTable(elem byte) {
	fi.tableElems = append(fi.tableElems, elem)
	if _, ok := fi.growType[elem]; !ok {
		fi.growType[elem] = fi.addType(wasmbin.FuncType{Params: []byte{elem}, Results: []byte{0x7f}})
	}
}

// addType appends a type after the tick type and returns its index.
func (fi *info) addType(t wasmbin.FuncType) uint32 {
	fi.addedTypes = append(fi.addedTypes, t)
	return fi.nTypes + uint32(len(fi.addedTypes))
}

// blockTypeFor makes sure a function of type t can wrap its body in a
// block of its results: a type () -> results, added if the function's
// own type takes parameters and returns more than one value.
func (fi *info) blockTypeFor(t uint32) {
	ft := fi.types[t]
	if len(ft.Results) < 2 || len(ft.Params) == 0 {
		return
	}
	key := string(ft.Results)
	if _, ok := fi.blockTypes[key]; !ok {
		fi.blockTypes[key] = fi.addType(wasmbin.FuncType{Results: ft.Results})
	}
}

// blockType returns the block type encoding for a body of type t.
func (fi *info) blockType(out []byte, t uint32) []byte {
	ft := fi.types[t]
	switch {
	case len(ft.Results) == 0:
		return append(out, 0x40)
	case len(ft.Results) == 1:
		return append(out, ft.Results[0])
	case len(ft.Params) == 0:
		return wasmbin.AppendS64(out, int64(t))
	}
	return wasmbin.AppendS64(out, int64(fi.blockTypes[string(ft.Results)]))
}

func (fi *info) rewrite(s wasmbin.Section) ([]byte, error) {
	r := wasmbin.NewReader(s.Body)
	var out []byte
	var err error
	switch s.ID {
	case wasmbin.SecType:
		n := r.U32()
		out = fi.appendTypes(r.Rest(), n)
	case wasmbin.SecImport:
		n := r.U32()
		out = fi.appendImports(r.Rest(), n)
	case wasmbin.SecGlobal:
		out, err = fi.rewriteGlobals(r)
	case wasmbin.SecExport:
		out, err = fi.rewriteExports(r)
	case wasmbin.SecStart:
		var f uint32
		if f, err = fi.remapFunc(r.U32()); err == nil {
			out = wasmbin.AppendU32(nil, f)
		}
	case wasmbin.SecElement:
		out, err = fi.rewriteElements(r)
	case wasmbin.SecData:
		out, err = fi.checkData(r)
	case wasmbin.SecCode:
		out, err = fi.rewriteCode(r)
	case wasmbin.SecTable:
		out, err = fi.checkTables(r)
	default:
		return s.Body, nil
	}
	if err == nil && r.Err != nil {
		err = r.Err
	}
	if err == nil && r.More() {
		err = fmt.Errorf("trailing bytes")
	}
	if err != nil {
		return nil, fmt.Errorf("section %d: %w", s.ID, err)
	}
	return out, nil
}

// appendTypes writes a type section: the n original entries, then
// () -> i64 for tick and exceeded, then the added block types.
func (fi *info) appendTypes(entries []byte, n uint32) []byte {
	out := wasmbin.AppendU32(nil, n+1+uint32(len(fi.addedTypes)))
	out = append(out, entries...)
	out = append(out, 0x60, 0x00, 0x01, 0x7e)
	for _, t := range fi.addedTypes {
		out = append(out, 0x60)
		out = wasmbin.AppendU32(out, uint32(len(t.Params)))
		out = append(out, t.Params...)
		out = wasmbin.AppendU32(out, uint32(len(t.Results)))
		out = append(out, t.Results...)
	}
	return out
}

// appendImports writes an import section: the n originals, then tick and
// exceeded.
func (fi *info) appendImports(entries []byte, n uint32) []byte {
	out := wasmbin.AppendU32(nil, n+addedImports)
	out = append(out, entries...)
	for _, imp := range [][2]string{{TickModule, TickName}, {DepthModule, DepthName}} {
		out = wasmbin.AppendName(out, imp[0])
		out = wasmbin.AppendName(out, imp[1])
		out = append(out, wasmbin.KindFunc)
		out = wasmbin.AppendU32(out, fi.tickType())
	}
	return out
}

// appendGlobals writes a global section: the originals, then the budget
// (mutable i64) and the call depth left (mutable i32, counting down from
// the limit).
func (fi *info) appendGlobals(entries []byte, n uint32) []byte {
	out := wasmbin.AppendU32(nil, n+2)
	out = append(out, entries...)
	out = append(out, 0x7e, 0x01, 0x42)
	out = wasmbin.AppendS64(out, Budget)
	out = append(out, 0x0b, 0x7f, 0x01, 0x41)
	out = wasmbin.AppendS64(out, int64(fi.maxDepth))
	return append(out, 0x0b)
}
