package wasmbin

import (
	"errors"
	"fmt"
	"strings"
)

// Memory is one linear memory of a module, imported or defined.
type Memory struct {
	Index   uint32   // in the memory index space
	Import  string   // "module.name" if imported
	Exports []string // names it is exported under
	Limits           // in 64 KiB pages
}

// Table is one table of a module, imported or defined.
type Table struct {
	Index   uint32
	Import  string
	Exports []string
	Elem    byte // 0x70 funcref, 0x6f externref
	Limits       // in elements
}

// Facts are what a host needs to know about a module before it
// instantiates it: every memory and table, exported or not.
type Facts struct {
	Memories []Memory
	Tables   []Table
	Globals  []string // imported globals, as "module.name"
	// Funcs are the names the module exports functions under.
	Funcs []string
	// Custom are the module's custom sections, by name (the last of a
	// name); each body aliases the module's bytes.
	Custom map[string][]byte
	// Counts are the module's declarations, imported and defined, that
	// every instance holds a copy of.
	Counts Counts
	// Types are the module's function types; FuncImports its imported
	// functions, in order.
	Types       []FuncType
	FuncImports []FuncImport
}

// FuncImport is an imported function: its module, its name and its type
// (an index in Types, not checked against it).
type FuncImport struct {
	Module, Name string
	Type         uint32
}

// Counts are the declarations of a module that each of its instances
// holds in the host's memory, besides its linear memory.
type Counts struct {
	Types           int    // function types
	Tables          int    // tables, imported and defined
	Imports         int    // imports of every kind
	Exports         int    // exports of every kind
	Globals         int    // defined globals
	TableElements   uint64 // the tables' minimum sizes, summed
	ElementSegments int
	Elements        uint64 // the element segments' entries, summed
	DataSegments    int
}

// String names the memory for error messages.
func (m Memory) String() string { return describe("memory", m.Index, m.Import, m.Exports) }

// String names the table for error messages.
func (t Table) String() string { return describe("table", t.Index, t.Import, t.Exports) }

func describe(kind string, i uint32, imp string, exps []string) string {
	switch {
	case imp != "":
		return fmt.Sprintf("%s %d (imported from %s)", kind, i, imp)
	case len(exps) > 0:
		return fmt.Sprintf("%s %d (exported as %q)", kind, i, strings.Join(exps, `", "`))
	}
	return fmt.Sprintf("%s %d (not exported)", kind, i)
}

// Caps bound what ReadFactsWithin collects of a module: a vector of
// function types, tables, imports or exports longer than its cap is not
// read; its length is set in Counts and reading stops there, without an
// error, for the caller to refuse the module by that count. Each entry
// costs tens of bytes in Facts for 2 or 3 in the file (4 MiB of empty
// function types were 322 MiB allocated, and 2 s, 4 MiB of tables 623
// MiB, before the count was judged). Zero is no cap.
type Caps struct {
	Types, Tables, Imports, Exports int
}

// maxMemories bounds the memories ReadFacts reads: wazero takes one (the
// multi-memory proposal is not one of its features), and more are no
// module it runs.
const maxMemories = 1024

// errOverCap stops the reading of a module at a vector over its cap.
var errOverCap = errors.New("over a cap")

// over reports whether a vector of n entries is over cap (0: no cap).
func over(n uint32, cap int) bool { return cap > 0 && int64(n) > int64(cap) }

// ReadFacts is ReadFactsWithin with no caps.
func ReadFacts(wasm []byte) (Facts, error) { return ReadFactsWithin(wasm, Caps{}) }

// ReadFactsWithin reads the limits of every memory and table of wasm, the
// names of its function exports, its custom sections and the counts of
// its declarations, its function types and imported functions. It reads
// only the type, import, table, memory, global (its count), export,
// element, data (its count) and custom sections; it does not validate the
// rest of the module. It stops at a vector over its cap (Caps).
func ReadFactsWithin(wasm []byte, caps Caps) (Facts, error) {
	secs, err := Sections(wasm)
	if err != nil {
		return Facts{}, err
	}
	var f Facts
	for _, s := range secs {
		r := NewReader(s.Body)
		switch s.ID {
		case SecType:
			n := r.U32()
			if f.Counts.Types = int(n); over(n, caps.Types) {
				return f, nil
			}
			for i := uint32(0); i < n && r.Err == nil && err == nil; i++ {
				var t FuncType
				if t, err = r.ReadFuncType(); err == nil {
					f.Types = append(f.Types, t)
				}
			}
		case SecImport:
			err = f.readImports(r, caps)
		case SecTable:
			n := r.U32()
			if f.Counts.Tables = len(f.Tables) + int(n); caps.Tables > 0 && f.Counts.Tables > caps.Tables {
				return f, nil
			}
			for i := uint32(0); i < n && r.Err == nil; i++ {
				elem, l := r.ReadTableType()
				f.Tables = append(f.Tables, Table{Index: uint32(len(f.Tables)), Elem: elem, Limits: l})
				f.Counts.TableElements += l.Min
			}
		case SecMemory:
			n := r.U32()
			if len(f.Memories)+int(n) > maxMemories {
				return Facts{}, fmt.Errorf("section %d: %d memories", s.ID, len(f.Memories)+int(n))
			}
			for i := uint32(0); i < n && r.Err == nil; i++ {
				f.Memories = append(f.Memories, Memory{Index: uint32(len(f.Memories)), Limits: r.ReadLimits()})
			}
		case SecExport:
			err = f.readExports(r, caps)
		case SecGlobal:
			f.Counts.Globals = int(r.U32())
			continue
		case SecData:
			f.Counts.DataSegments = int(r.U32())
			continue
		case SecElement:
			err = f.readElements(r)
		case SecCustom:
			// A name that does not read is not refused here: custom
			// sections are not the host's business, wazero decides.
			if name, _ := r.Name(); r.Err == nil {
				if f.Custom == nil {
					f.Custom = map[string][]byte{}
				}
				f.Custom[name] = r.B[r.Pos:]
			}
			continue
		default:
			continue
		}
		if err == errOverCap {
			return f, nil
		}
		if err == nil && r.Err == nil && r.More() {
			err = fmt.Errorf("trailing bytes")
		}
		if err == nil {
			err = r.Err
		}
		if err != nil {
			return Facts{}, fmt.Errorf("section %d: %w", s.ID, err)
		}
	}
	return f, nil
}

func (f *Facts) readImports(r *Reader, caps Caps) error {
	n := r.U32()
	if f.Counts.Imports = int(n); over(n, caps.Imports) {
		return errOverCap
	}
	for i := uint32(0); i < n && r.Err == nil; i++ {
		mod, _ := r.Name()
		name, _ := r.Name()
		switch kind := r.Byte(); kind {
		case KindFunc:
			f.FuncImports = append(f.FuncImports, FuncImport{Module: mod, Name: name, Type: r.U32()})
		case KindTable:
			elem, l := r.ReadTableType()
			f.Tables = append(f.Tables, Table{Index: uint32(len(f.Tables)), Import: mod + "." + name, Elem: elem, Limits: l})
			f.Counts.Tables = len(f.Tables)
		case KindMemory:
			if len(f.Memories) == maxMemories {
				return fmt.Errorf("import %d: more than %d memories", i, maxMemories)
			}
			f.Memories = append(f.Memories, Memory{Index: uint32(len(f.Memories)), Import: mod + "." + name, Limits: r.ReadLimits()})
		case KindGlobal:
			r.Byte()
			r.Byte()
			f.Globals = append(f.Globals, mod+"."+name)
		case KindTag:
			r.Byte()
			r.U32()
		default:
			return fmt.Errorf("import %d: unknown kind %d", i, kind)
		}
	}
	return nil
}

func (f *Facts) readExports(r *Reader, caps Caps) error {
	n := r.U32()
	if f.Counts.Exports = int(n); over(n, caps.Exports) {
		return errOverCap
	}
	for i := uint32(0); i < n && r.Err == nil; i++ {
		name, _ := r.Name()
		kind := r.Byte()
		idx := r.U32()
		switch {
		case kind == KindFunc:
			f.Funcs = append(f.Funcs, name)
		case kind == KindMemory && idx < uint32(len(f.Memories)):
			f.Memories[idx].Exports = append(f.Memories[idx].Exports, name)
		case kind == KindTable && idx < uint32(len(f.Tables)):
			f.Tables[idx].Exports = append(f.Tables[idx].Exports, name)
		case kind > KindTag:
			return fmt.Errorf("export %q: unknown kind %d", name, kind)
		}
	}
	return nil
}

// readElements counts the element segments and their entries. It reads
// each segment's constant expressions only as far as needed to find the
// next segment.
func (f *Facts) readElements(r *Reader) error {
	n := r.U32()
	f.Counts.ElementSegments = int(n)
	for i := uint32(0); i < n && r.Err == nil; i++ {
		flags := r.U32()
		if flags > 7 {
			return fmt.Errorf("element %d: unknown flags %d", i, flags)
		}
		if flags&3 == 2 { // explicit table index
			r.U32()
		}
		if flags&1 == 0 { // active: offset expression
			if err := skipConstExpr(r); err != nil {
				return fmt.Errorf("element %d offset: %w", i, err)
			}
		}
		if flags&3 != 0 { // elemkind or reftype
			r.Byte()
		}
		count := r.U32()
		f.Counts.Elements += uint64(count)
		for j := uint32(0); j < count && r.Err == nil; j++ {
			if flags&4 == 0 {
				r.U32()
			} else if err := skipConstExpr(r); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
	}
	return nil
}

// skipConstExpr reads a constant expression up to its end: the
// instructions a constant expression may hold (extended constants
// included), with their immediates.
func skipConstExpr(r *Reader) error {
	for r.Err == nil {
		switch op := r.Byte(); op {
		case 0x0b: // end
			return nil
		case 0x41: // i32.const
			r.Sleb(32)
		case 0x42: // i64.const
			r.Sleb(64)
		case 0x43: // f32.const
			r.Bytes(4)
		case 0x44: // f64.const
			r.Bytes(8)
		case 0x23, 0xd2: // global.get, ref.func
			r.U32()
		case 0xd0: // ref.null heaptype
			r.Sleb(33)
		case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e: // extended constants
		case 0xfd: // v128.const
			if sub := r.U32(); sub != 12 && r.Err == nil {
				return fmt.Errorf("instruction 0xfd %d is not constant", sub)
			}
			r.Bytes(16)
		default:
			if r.Err == nil {
				return fmt.Errorf("instruction 0x%02x is not constant", op)
			}
		}
	}
	return r.Err
}
