package fuel

import (
	"fmt"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
)

func (fi *info) rewriteGlobals(r *wasmbin.Reader) ([]byte, error) {
	n := r.U32()
	var entries []byte
	for i := uint32(0); i < n && r.Err == nil; i++ {
		entries = append(entries, r.Byte(), r.Byte()) // valtype, mutability
		var err error
		if entries, err = fi.constExpr(r, entries); err != nil {
			return nil, fmt.Errorf("global %d: %w", i, err)
		}
	}
	return fi.appendGlobals(entries, n), nil
}

// rewriteExports remaps exported functions and refuses an exported
// global that does not exist (it would name the budget).
func (fi *info) rewriteExports(r *wasmbin.Reader) ([]byte, error) {
	n := r.U32()
	out := wasmbin.AppendU32(nil, n)
	for i := uint32(0); i < n && r.Err == nil; i++ {
		name, raw := r.Name()
		out = append(out, raw...)
		kind := r.Byte()
		idx := r.U32()
		var err error
		switch kind {
		case wasmbin.KindFunc:
			idx, err = fi.remapFunc(idx)
		case wasmbin.KindGlobal:
			if idx >= fi.nGlobals {
				err = fmt.Errorf("global index %d out of range (%d globals)", idx, fi.nGlobals)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("export %q: %w", name, err)
		}
		out = append(out, kind)
		out = wasmbin.AppendU32(out, idx)
	}
	return out, nil
}

func (fi *info) rewriteElements(r *wasmbin.Reader) ([]byte, error) {
	n := r.U32()
	out := wasmbin.AppendU32(nil, n)
	for i := uint32(0); i < n && r.Err == nil; i++ {
		flags := r.U32()
		out = wasmbin.AppendU32(out, flags)
		var err error
		if flags > 7 {
			return nil, fmt.Errorf("element %d: unknown flags %d", i, flags)
		}
		if flags&2 != 0 && flags&1 == 0 { // explicit table index
			out = wasmbin.AppendU32(out, r.U32())
		}
		if flags&1 == 0 { // active: offset expression
			if out, err = fi.constExpr(r, out); err != nil {
				return nil, fmt.Errorf("element %d offset: %w", i, err)
			}
		}
		if flags&3 != 0 { // elemkind or reftype
			out = append(out, r.Byte())
		}
		count := r.U32()
		out = wasmbin.AppendU32(out, count)
		for j := uint32(0); j < count && r.Err == nil; j++ {
			if flags&4 == 0 {
				f, err := fi.remapFunc(r.U32())
				if err != nil {
					return nil, fmt.Errorf("element %d: %w", i, err)
				}
				out = wasmbin.AppendU32(out, f)
			} else if out, err = fi.constExpr(r, out); err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
		}
	}
	return out, nil
}

// checkData checks the offset expressions of data segments (a global.get
// may not name the budget) and keeps the section as it is.
func (fi *info) checkData(r *wasmbin.Reader) ([]byte, error) {
	body := r.B
	n := r.U32()
	for i := uint32(0); i < n && r.Err == nil; i++ {
		switch flags := r.U32(); flags {
		case 0, 2:
			if flags == 2 {
				r.U32()
			}
			if err := fi.checkConstExpr(r); err != nil {
				return nil, fmt.Errorf("data %d offset: %w", i, err)
			}
		case 1:
		default:
			return nil, fmt.Errorf("data %d: unknown flags %d", i, flags)
		}
		r.Bytes(int(r.U32()))
	}
	return body, nil
}

// checkTables refuses table entries with initialiser expressions (a newer
// proposal this walker does not rewrite) and keeps the section.
func (fi *info) checkTables(r *wasmbin.Reader) ([]byte, error) {
	body := r.B
	n := r.U32()
	for i := uint32(0); i < n && r.Err == nil; i++ {
		if r.Peek() == 0x40 {
			return nil, fmt.Errorf("table %d: initialiser expressions are not supported", i)
		}
		r.ReadTableType()
	}
	return body, nil
}

// constExpr copies a constant expression, remapping ref.func.
func (fi *info) constExpr(r *wasmbin.Reader, out []byte) ([]byte, error) {
	return fi.walkConst(&walker{fi: fi, r: r, out: out, copied: r.Pos, constant: true})
}

// checkConstExpr reads and checks a constant expression, writing nothing.
func (fi *info) checkConstExpr(r *wasmbin.Reader) error {
	_, err := fi.walkConst(&walker{fi: fi, r: r, copied: r.Pos, constant: true, discard: true})
	return err
}

func (fi *info) walkConst(w *walker) ([]byte, error) {
	r := w.r
	for r.Err == nil {
		op, err := w.instr()
		if err != nil {
			return nil, err
		}
		if op == 0x0b {
			w.flush(r.Pos)
			return w.out, nil
		}
	}
	return nil, r.Err
}

// remapNames rewrites the name section's function indices. Label names
// are dropped: the checks add blocks, so label indices move. Local names
// are checked, as wazero would, and dropped: nothing reads them, and
// wazero keeps 24 bytes for each, whose index it does not check, for 2 of
// the file (8 MiB of them held 87 MiB for the module's life). Function
// names are kept once, and only in increasing order of index (as the
// format asks), so that they are at most one a function. Other
// subsections are kept as they are (wazero skips them).
func (fi *info) remapNames(body []byte) ([]byte, error) {
	r := wasmbin.NewReader(body)
	_, raw := r.Name()
	out := append([]byte(nil), raw...)
	funcNames := false
	for r.More() {
		id := r.Byte()
		sub := r.Bytes(int(r.U32()))
		if r.Err != nil {
			return nil, r.Err
		}
		if id == 3 {
			continue
		}
		if id == 1 || id == 2 {
			var err error
			var increasing bool
			if sub, increasing, err = fi.remapNameMap(id, sub); err != nil {
				return nil, err
			}
			if id == 2 || funcNames || !increasing {
				continue
			}
			funcNames = true
		}
		out = wasmbin.AppendSection(out, id, sub)
	}
	return out, nil
}

// remapNameMap remaps the function indices of a subsection of function
// (id 1) or local (id 2) names, and says whether they increase.
func (fi *info) remapNameMap(id byte, sub []byte) (_ []byte, increasing bool, _ error) {
	sr := wasmbin.NewReader(sub)
	n := sr.U32()
	nb := wasmbin.AppendU32(nil, n)
	increasing = true
	last := int64(-1)
	for i := uint32(0); i < n && sr.Err == nil; i++ {
		orig := sr.U32()
		f, err := fi.remapFunc(orig)
		if err != nil {
			return nil, false, err
		}
		increasing = increasing && int64(orig) > last
		last = int64(orig)
		nb = wasmbin.AppendU32(nb, f)
		start := sr.Pos
		if id == 1 {
			sr.Name()
		} else {
			m := sr.U32()
			for j := uint32(0); j < m && sr.Err == nil; j++ {
				sr.U32()
				// Dropped, so checked as wazero would have: a name that
				// is not UTF-8 refuses the module.
				if name, _ := sr.Name(); sr.Err == nil && !utf8.ValidString(name) {
					return nil, false, fmt.Errorf("function %d: local %d: a name that is not UTF-8", orig, j)
				}
			}
		}
		nb = append(nb, sub[start:sr.Pos]...)
	}
	if sr.Err == nil && sr.More() {
		return nil, false, fmt.Errorf("trailing bytes in name subsection %d", id)
	}
	return nb, increasing, sr.Err
}
