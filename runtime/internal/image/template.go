package image

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
)

// GlobalPrefix starts the export name of each mutable global a template
// exports: GlobalPrefix + its index in the global index space.
const GlobalPrefix = "wasmagent:image/global."

// PageSize is the size of a linear memory page.
const PageSize = 1 << 16

// Segment is an active data segment of the original module, which the host
// writes into a template instance's memory before initialization.
type Segment struct {
	Offset uint32
	Data   []byte
}

// Global is a mutable global of the original module, exported by the
// template under Export.
type Global struct {
	Index  uint32
	Type   byte // 0x7f i32, 0x7e i64, 0x7d f32, 0x7c f64
	Export string
}

// Template is a module rewritten for snapshots.
type Template struct {
	Wasm     []byte    // the rewritten module
	Segments []Segment // the original's active data segments, in order
	Globals  []Global  // the original's mutable defined globals
	MinPages uint32    // the memory's initial size
	Go       bool      // built by Go's toolchain (a go:buildid section)
	// Init: the module exports an initialiser (_initialize,
	// __wasm_call_ctors, _start or hs_init), the work an image saves.
	Init bool
	// OptOut: the module exports a function named OptOutExport, asking
	// to run its initialization in every instance.
	OptOut bool
}

// OptOutExport is the export by which a module asks for no image.
const OptOutExport = "wasmagent_no_image"

// ErrUnsupported is wrapped by every refusal of Make: the module is valid
// (as far as Make reads it) but a snapshot cannot capture its state.
var ErrUnsupported = errors.New("a snapshot cannot capture its state")

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrUnsupported)
}

// Make rewrites wasm into a template. An error that wraps ErrUnsupported
// says why the module cannot have images; any other error is a malformed
// module.
func Make(wasm []byte) (*Template, error) {
	secs, err := wasmbin.Sections(wasm)
	if err != nil {
		return nil, err
	}
	t := &Template{}
	var nImportedGlobals uint32
	memories := 0
	exportAt := -1 // index in secs of the export section
	for i, s := range secs {
		r := wasmbin.NewReader(s.Body)
		switch s.ID {
		case wasmbin.SecImport:
			nImportedGlobals, err = readImports(r)
		case wasmbin.SecMemory:
			n := r.U32()
			for j := uint32(0); j < n && r.Err == nil; j++ {
				l := r.ReadLimits()
				if l.Shared || l.Is64 {
					return nil, unsupported("a shared or 64-bit memory")
				}
				t.MinPages = uint32(l.Min)
				memories++
			}
		case wasmbin.SecGlobal:
			t.Globals, err = readGlobals(r, nImportedGlobals)
		case wasmbin.SecExport:
			exportAt = i
			t.Init, t.OptOut, err = readExports(r)
		case wasmbin.SecStart:
			return nil, unsupported("a start function (it runs before the host can write the memory)")
		case wasmbin.SecData:
			t.Segments, err = readData(r)
		case wasmbin.SecCustom:
			name, _ := r.Name()
			t.Go = t.Go || name == "go:buildid"
			r.Rest()
		}
		if err == nil {
			err = r.Err
		}
		if err != nil {
			if errors.Is(err, ErrUnsupported) {
				return nil, err
			}
			return nil, fmt.Errorf("section %d: %w", s.ID, err)
		}
	}
	if memories != 1 {
		return nil, unsupported("%d memories defined (one is needed)", memories)
	}
	for _, seg := range t.Segments {
		if uint64(seg.Offset)+uint64(len(seg.Data)) > uint64(t.MinPages)*PageSize {
			return nil, unsupported("a data segment lies past the initial memory")
		}
	}
	return t, t.rewrite(secs, exportAt)
}

// rewrite writes t.Wasm: the data section goes, or, if the module has a
// data count section (code may name segments), its active segments become
// empty passive ones, so that indices stay valid; and every mutable global
// is exported.
func (t *Template) rewrite(secs []wasmbin.Section, exportAt int) error {
	out := []byte(wasmbin.Header)
	dataCount := false
	for _, s := range secs {
		dataCount = dataCount || s.ID == wasmbin.SecDataCnt
	}
	appendExports := func(body []byte, n uint32) []byte {
		n += uint32(len(t.Globals))
		b := wasmbin.AppendU32(nil, n)
		b = append(b, body...)
		for _, g := range t.Globals {
			b = wasmbin.AppendName(b, g.Export)
			b = append(b, wasmbin.KindGlobal)
			b = wasmbin.AppendU32(b, g.Index)
		}
		return b
	}
	for i, s := range secs {
		if exportAt < 0 && s.ID != wasmbin.SecCustom && wasmbin.SectionRank[s.ID] > wasmbin.SectionRank[wasmbin.SecExport] {
			out = wasmbin.AppendSection(out, wasmbin.SecExport, appendExports(nil, 0))
			exportAt = -2
		}
		switch {
		case i == exportAt:
			r := wasmbin.NewReader(s.Body)
			n := r.U32()
			if r.Err != nil {
				return r.Err
			}
			out = wasmbin.AppendSection(out, s.ID, appendExports(r.Rest(), n))
		case s.ID == wasmbin.SecData && !dataCount:
			// No code names a segment: the section goes (wazero would
			// visit every segment at every instantiation).
		case s.ID == wasmbin.SecData:
			b := wasmbin.AppendU32(nil, uint32(len(t.Segments)))
			for range t.Segments {
				b = append(b, 0x01, 0x00) // passive, empty
			}
			out = wasmbin.AppendSection(out, s.ID, b)
		default:
			out = wasmbin.AppendSection(out, s.ID, s.Body)
		}
	}
	if exportAt == -1 {
		out = wasmbin.AppendSection(out, wasmbin.SecExport, appendExports(nil, 0))
	}
	t.Wasm = out
	return nil
}

// readExports reports whether the module exports an initialiser, and
// OptOutExport.
func readExports(r *wasmbin.Reader) (init, optOut bool, err error) {
	n := r.U32()
	for i := uint32(0); i < n && r.Err == nil; i++ {
		name, _ := r.Name()
		kind := r.Byte()
		r.U32()
		if kind != wasmbin.KindFunc {
			continue
		}
		switch name {
		case "_initialize", "__wasm_call_ctors", "_start", "hs_init":
			init = true
		case OptOutExport:
			optOut = true
		}
	}
	return init, optOut, r.Err
}

// CompactSegments copies the segments' data into one buffer of their
// own, so that the module's bytes they pointed into can be freed.
func (t *Template) CompactSegments() {
	n := 0
	for _, s := range t.Segments {
		n += len(s.Data)
	}
	buf := make([]byte, 0, n)
	for i, s := range t.Segments {
		start := len(buf)
		buf = append(buf, s.Data...)
		t.Segments[i].Data = buf[start:len(buf):len(buf)]
	}
}

func readImports(r *wasmbin.Reader) (uint32, error) {
	var globals uint32
	n := r.U32()
	for i := uint32(0); i < n && r.Err == nil; i++ {
		mod, _ := r.Name()
		name, _ := r.Name()
		switch kind := r.Byte(); kind {
		case wasmbin.KindFunc:
			r.U32()
		case wasmbin.KindTable:
			r.ReadTableType()
		case wasmbin.KindMemory:
			return 0, unsupported("an imported memory (%s.%s)", mod, name)
		case wasmbin.KindGlobal:
			r.Byte()
			if r.Byte() != 0 {
				return 0, unsupported("an imported mutable global (%s.%s)", mod, name)
			}
			globals++
		case wasmbin.KindTag:
			r.Byte()
			r.U32()
		default:
			return 0, fmt.Errorf("import %d: unknown kind %d", i, kind)
		}
	}
	return globals, nil
}

func readGlobals(r *wasmbin.Reader, imported uint32) ([]Global, error) {
	var gs []Global
	n := r.U32()
	for i := uint32(0); i < n && r.Err == nil; i++ {
		typ, mut := r.Byte(), r.Byte()
		if err := skipConst(r); err != nil {
			return nil, fmt.Errorf("global %d: %w", imported+i, err)
		}
		if mut == 0 {
			continue
		}
		switch typ {
		case 0x7f, 0x7e, 0x7d, 0x7c:
		default:
			return nil, unsupported("a mutable global of type 0x%x (only numbers can be read back)", typ)
		}
		idx := imported + i
		gs = append(gs, Global{Index: idx, Type: typ, Export: GlobalPrefix + strconv.FormatUint(uint64(idx), 10)})
	}
	return gs, nil
}

// skipConst reads a constant expression up to its end.
func skipConst(r *wasmbin.Reader) error {
	for r.Err == nil {
		switch op := r.Byte(); op {
		case 0x0b:
			return nil
		case 0x41:
			r.Sleb(32)
		case 0x42:
			r.Sleb(64)
		case 0x43:
			r.Bytes(4)
		case 0x44:
			r.Bytes(8)
		case 0x23, 0xd2:
			r.U32()
		case 0xd0:
			r.Byte()
		default:
			return unsupported("instruction 0x%x in a constant expression", op)
		}
	}
	return r.Err
}

func readData(r *wasmbin.Reader) ([]Segment, error) {
	var segs []Segment
	n := r.U32()
	for i := uint32(0); i < n && r.Err == nil; i++ {
		switch flags := r.U32(); flags {
		case 0:
		case 1:
			return nil, unsupported("a passive data segment (its drop state is not in a snapshot)")
		case 2:
			if mem := r.U32(); mem != 0 {
				return nil, fmt.Errorf("data segment %d: memory %d", i, mem)
			}
		default:
			return nil, fmt.Errorf("data segment %d: flags %d", i, flags)
		}
		if op := r.Byte(); op != 0x41 {
			return nil, unsupported("data segment %d has an offset that is not a constant", i)
		}
		off := r.Sleb(32)
		if r.Byte() != 0x0b {
			return nil, unsupported("data segment %d has an offset that is not a constant", i)
		}
		size := r.U32()
		data := r.Bytes(int(size))
		segs = append(segs, Segment{Offset: uint32(off), Data: data})
	}
	return segs, nil
}
