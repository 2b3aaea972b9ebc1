package wasmbin

import (
	"errors"
	"fmt"
)

// Section ids of the binary format.
const (
	SecCustom   = 0
	SecType     = 1
	SecImport   = 2
	SecFunction = 3
	SecTable    = 4
	SecMemory   = 5
	SecGlobal   = 6
	SecExport   = 7
	SecStart    = 8
	SecElement  = 9
	SecCode     = 10
	SecData     = 11
	SecDataCnt  = 12
	SecTag      = 13
)

// Import and export kinds.
const (
	KindFunc   = 0
	KindTable  = 1
	KindMemory = 2
	KindGlobal = 3
	KindTag    = 4
)

// ErrNotWasm is the error for data that does not start like a module.
var ErrNotWasm = errors.New("not a WebAssembly module (bad magic or version)")

// Header is the magic and version every module starts with.
const Header = "\x00asm\x01\x00\x00\x00"

// MaxSections bounds a module's sections, custom ones included. A valid
// module has at most 13 others, and real ones a few dozen custom ones at
// most (names, producers, a dozen of DWARF); but an empty custom section
// is 3 bytes of the file and 32 of every list of sections, and the host
// lists them three times when it loads a module: 16 MiB of them made it
// allocate 3 GB, and take 10 s, before anything was checked.
const MaxSections = 1024

// ErrTooManySections is the error of a module of more than MaxSections
// sections.
var ErrTooManySections = fmt.Errorf("more than %d sections, custom ones included", MaxSections)

// Section is one section of a module; Body aliases the module's bytes.
type Section struct {
	ID   byte
	Body []byte
}

// Sections splits a module into its sections, in file order.
func Sections(wasm []byte) ([]Section, error) {
	if len(wasm) < 8 || string(wasm[:8]) != Header {
		return nil, ErrNotWasm
	}
	var secs []Section
	r := &Reader{B: wasm, Pos: 8}
	for r.More() {
		id := r.Byte()
		size := r.U32()
		body := r.Bytes(int(size))
		if r.Err != nil {
			return nil, fmt.Errorf("section %d: %w", id, r.Err)
		}
		if len(secs) == MaxSections {
			return nil, ErrTooManySections
		}
		secs = append(secs, Section{id, body})
	}
	return secs, nil
}

// SectionRank gives each known non-custom section its place in the order
// the binary format requires.
var SectionRank = map[byte]int{
	SecType: 1, SecImport: 2, SecFunction: 3, SecTable: 4, SecMemory: 5, SecTag: 6,
	SecGlobal: 7, SecExport: 8, SecStart: 9, SecElement: 10, SecDataCnt: 11, SecCode: 12, SecData: 13,
}

// FuncType is a function type: its parameter and result value types.
type FuncType struct {
	Params, Results []byte
}

// ValueType reports whether b is a one-byte value type (number, vector,
// funcref, externref). Others (typed references) are not supported: a
// reader that guessed their length could misread everything after them.
func ValueType(b byte) bool {
	switch b {
	case 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
		return true
	}
	return false
}

// ReadFuncType reads a function type.
func (r *Reader) ReadFuncType() (FuncType, error) {
	if form := r.Byte(); form != 0x60 {
		return FuncType{}, fmt.Errorf("type form 0x%x is not a function type", form)
	}
	var t FuncType
	for _, p := range []*[]byte{&t.Params, &t.Results} {
		n := r.U32()
		*p = r.Bytes(int(n))
		for _, b := range *p {
			if !ValueType(b) {
				return FuncType{}, fmt.Errorf("value type 0x%x is not supported", b)
			}
		}
	}
	return t, r.Err
}

// Limits are the limits of a memory (in 64 KiB pages) or a table (in
// elements).
type Limits struct {
	Min, Max uint64
	HasMax   bool
	Shared   bool
	Is64     bool // memory64 or table64
}

// ReadLimits reads limits, 32- or 64-bit.
func (r *Reader) ReadLimits() Limits {
	flags := r.Byte()
	if flags > 7 {
		r.Fail(fmt.Errorf("limits flags 0x%x not supported", flags))
		return Limits{}
	}
	l := Limits{HasMax: flags&1 != 0, Shared: flags&2 != 0, Is64: flags&4 != 0}
	bits := uint(32)
	if l.Is64 {
		bits = 64
	}
	l.Min = r.Uleb(bits)
	if l.HasMax {
		l.Max = r.Uleb(bits)
	}
	return l
}

func (l Limits) String() string {
	s := fmt.Sprintf("min %d", l.Min)
	if l.HasMax {
		s += fmt.Sprintf(", max %d", l.Max)
	}
	if l.Shared {
		s += ", shared"
	}
	if l.Is64 {
		s += ", 64-bit"
	}
	return s
}

// ReadTableType reads a table type: its element type and limits.
func (r *Reader) ReadTableType() (byte, Limits) {
	elem := r.Byte()
	if elem != 0x70 && elem != 0x6f {
		r.Fail(fmt.Errorf("table element type 0x%x not supported", elem))
	}
	return elem, r.ReadLimits()
}
