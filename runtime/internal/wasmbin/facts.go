package wasmbin

import (
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

// ReadFacts reads the limits of every memory and table of wasm, the
// names of its function exports and its custom sections. It reads only
// the import, table, memory, export and custom sections; it does not
// validate the rest of the module.
func ReadFacts(wasm []byte) (Facts, error) {
	secs, err := Sections(wasm)
	if err != nil {
		return Facts{}, err
	}
	var f Facts
	for _, s := range secs {
		r := NewReader(s.Body)
		switch s.ID {
		case SecImport:
			err = f.readImports(r)
		case SecTable:
			n := r.U32()
			for i := uint32(0); i < n && r.Err == nil; i++ {
				elem, l := r.ReadTableType()
				f.Tables = append(f.Tables, Table{Index: uint32(len(f.Tables)), Elem: elem, Limits: l})
			}
		case SecMemory:
			n := r.U32()
			for i := uint32(0); i < n && r.Err == nil; i++ {
				f.Memories = append(f.Memories, Memory{Index: uint32(len(f.Memories)), Limits: r.ReadLimits()})
			}
		case SecExport:
			err = f.readExports(r)
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

func (f *Facts) readImports(r *Reader) error {
	n := r.U32()
	for i := uint32(0); i < n && r.Err == nil; i++ {
		mod, _ := r.Name()
		name, _ := r.Name()
		switch kind := r.Byte(); kind {
		case KindFunc:
			r.U32()
		case KindTable:
			elem, l := r.ReadTableType()
			f.Tables = append(f.Tables, Table{Index: uint32(len(f.Tables)), Import: mod + "." + name, Elem: elem, Limits: l})
		case KindMemory:
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

func (f *Facts) readExports(r *Reader) error {
	n := r.U32()
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
