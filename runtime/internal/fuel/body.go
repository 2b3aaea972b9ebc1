package fuel

import (
	"errors"
	"fmt"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
)

func (fi *info) rewriteCode(r *wasmbin.Reader) ([]byte, error) {
	n := r.U32()
	if int(n) != len(fi.funcTypes) {
		return nil, fmt.Errorf("%d function bodies for %d functions", n, len(fi.funcTypes))
	}
	// The code grows by its checks, a few percent: one allocation.
	out := make([]byte, 0, len(r.B)+len(r.B)/8)
	out = wasmbin.AppendU32(out, n)
	for i := uint32(0); i < n && r.Err == nil; i++ {
		size := r.U32()
		body := r.Bytes(int(size))
		if r.Err != nil {
			break
		}
		nb, err := fi.rewriteBody(fi.nImportedFuncs+i, body, fi.funcTypes[i])
		if err != nil {
			return nil, fmt.Errorf("function %d: %w", fi.nImportedFuncs+i, err)
		}
		out = wasmbin.AppendU32(out, uint32(len(nb)))
		out = append(out, nb...)
	}
	return out, nil
}

const maxLocals = 50000

// rewriteBody instruments one function body (doc.go has the rule):
//
//	locals + one i64 scratch [+ an i32: the depth at entry]
//	[if it calls: depth--, exceeded if none was left]
//	[if it calls (or has over leafBytes outside loops) and no loop header
//	 comes first unconditionally: fuel check, weighted (weight.go)]
//	[if it calls: block (results of the function)]
//	  the body, a weighted fuel check at the start of every loop body,
//	  [depth restored before every return and return_call*]
//	[if it calls: end; depth restored]
//	end
//
// The block makes every branch to the function's label (br, br_if and
// br_table alike) land on the restore, with no label renumbered: the
// body's function-level label is now the block's.
//
// The body returned is valid until the next call: the walker's buffers
// are reused from body to body (allocation is most of the rewrite's cost
// under the race detector, which clears its shadow of each).
func (fi *info) rewriteBody(f uint32, body []byte, typ uint32) ([]byte, error) {
	r := &fi.br
	*r = wasmbin.Reader{B: body}
	groups := r.U32()
	decls := fi.decls[:0]
	locals := uint64(len(fi.types[typ].Params))
	for g := uint32(0); g < groups && r.Err == nil; g++ {
		c := r.U32()
		t := r.Byte()
		locals += uint64(c)
		if locals > maxLocals {
			return nil, fmt.Errorf("more than %d locals", maxLocals)
		}
		decls = wasmbin.AppendU32(decls, c)
		decls = append(decls, t)
	}
	fi.decls = decls
	if r.Err != nil {
		return nil, r.Err
	}
	scratch := uint32(locals)
	w := &fi.bw
	*w = walker{fi: fi, r: r, out: w.out[:0], copied: r.Pos, locals: scratch, scratch: scratch, checks: true,
		ctl: w.ctl[:0], regions: append(w.regions[:0], region{}), exits: w.exits[:0]}
	fi.cw.blockType(0, len(fi.types[typ].Results)) // the function's label
	fi.cw.start(f, scratch)
	fi.cw.c.Locals = int(locals) - len(fi.types[typ].Params)
	if err := w.body(); err != nil {
		return nil, err
	}
	fi.costs = append(fi.costs, fi.cw.c)
	depth := !fi.noDepth && w.sawCall
	i32s := byte(0) // the depth at entry, then a bulk instruction's length
	switch {
	case w.usesLen:
		i32s = 2
	case depth:
		i32s = 1
	}
	out := wasmbin.AppendU32(fi.bodyOut[:0], groups+1+b2u(i32s > 0))
	defer func() { fi.bodyOut = out[:0] }()
	out = append(out, decls...)
	out = append(out, 0x01, 0x7e) // the scratch local
	if i32s > 0 {
		out = append(out, i32s, 0x7f)
	}
	entry := w.entryCheck()
	if !w.sawCall {
		if entry > 0 {
			out, _ = fi.appendCheck(out, scratch, entry, false)
		}
		out = append(out, w.out...)
		return out, nil
	}
	saved := scratch + 1
	if depth {
		out = fi.appendDepthEntry(out, saved)
	}
	if entry > 0 {
		out, _ = fi.appendCheck(out, scratch, entry, false)
	}
	if !depth {
		out = append(out, w.out...)
		return out, nil
	}
	out = append(out, 0x02) // block
	out = fi.blockType(out, typ)
	prev := 0
	for _, at := range w.exits {
		out = append(out, w.out[prev:at]...)
		out = fi.appendDepthExit(out, saved)
		prev = at
	}
	out = append(out, w.out[prev:]...) // ends with the block's end
	out = fi.appendDepthExit(out, saved)
	out = append(out, 0x0b)
	return out, nil
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// body walks instructions up to the end of the function.
func (w *walker) body() error {
	depth := 1
	for depth > 0 {
		if !w.r.More() {
			return errors.New("the body ends before its end instruction")
		}
		op, err := w.instr()
		if err != nil {
			return err
		}
		w.control(op)
		switch op {
		case 0x02, 0x03, 0x04, 0x06:
			depth++
		case 0x0b:
			depth--
		}
	}
	if w.r.More() {
		return errors.New("bytes after the end of the body")
	}
	w.flush(w.r.Pos)
	return nil
}

// appendDepthEntry saves the depth left (which counts down from the
// limit) and takes one, calling exceeded (which does not return) when
// none is left.
func (fi *info) appendDepthEntry(out []byte, saved uint32) []byte {
	d := fi.depthGlobal()
	out = append(out, 0x23)
	out = wasmbin.AppendU32(out, d)
	out = append(out, 0x22)
	out = wasmbin.AppendU32(out, saved)
	out = append(out, 0x45, 0x04, 0x40, 0x10) // i32.eqz; if; call
	out = wasmbin.AppendU32(out, fi.depthFunc())
	out = append(out, 0x1a, 0x0b, 0x20) // drop; end; local.get
	out = wasmbin.AppendU32(out, saved)
	out = append(out, 0x41, 0x01, 0x6b, 0x24) // i32.const 1; i32.sub; global.set
	return wasmbin.AppendU32(out, d)
}

// appendDepthExit gives the frame back: the depth is what it was at entry.
func (fi *info) appendDepthExit(out []byte, saved uint32) []byte {
	out = append(out, 0x20)
	out = wasmbin.AppendU32(out, saved)
	out = append(out, 0x24)
	return wasmbin.AppendU32(out, fi.depthGlobal())
}

// appendCharge charges a bulk instruction by its length (on top of the
// stack): one check plus one per 256 bytes or elements, ticking when the
// budget is spent. The budget is at least 1 after every check, so the
// plain checks' test for zero stays right.
func (fi *info) appendCharge(out []byte, scratch, length uint32) []byte {
	g := fi.budgetGlobal()
	out = append(out, 0x21)
	out = wasmbin.AppendU32(out, length)
	out = append(out, 0x23)
	out = wasmbin.AppendU32(out, g)
	out = append(out, 0x20)
	out = wasmbin.AppendU32(out, length)
	out = append(out, 0xad, 0x42, 8, 0x88, 0x7d, 0x42, 0x01, 0x7d, 0x22) // extend_u; >> 8; sub; 1; sub; local.tee
	out = wasmbin.AppendU32(out, scratch)
	out = append(out, 0x24)
	out = wasmbin.AppendU32(out, g)
	out = append(out, 0x20)
	out = wasmbin.AppendU32(out, scratch)
	out = append(out, 0x42, 0x01, 0x53, 0x04, 0x40, 0x10) // 1; lt_s; if; call
	out = wasmbin.AppendU32(out, fi.tickFunc())
	out = append(out, 0x24)
	out = wasmbin.AppendU32(out, g)
	out = append(out, 0x0b, 0x20)
	return wasmbin.AppendU32(out, length)
}

// appendGrowCheck opens the guard of table.grow t (stack: ref, delta):
// the grow runs only if the table stays within its share of maxTable
// elements (maxTable divided among the module's tables, so that growing
// them all holds at most maxTable elements beyond their sizes at start),
// and fails as the spec says (-1) otherwise. The caller writes the grow, then
// "else drop; i32.const -1; end".
func (fi *info) appendGrowCheck(out []byte, t, length uint32) []byte {
	out = append(out, 0x21)
	out = wasmbin.AppendU32(out, length)
	out = append(out, 0xfc, 16) // table.size
	out = wasmbin.AppendU32(out, t)
	out = append(out, 0xad, 0x20)
	out = wasmbin.AppendU32(out, length)
	out = append(out, 0xad, 0x7c, 0x42)
	out = wasmbin.AppendS64(out, int64(fi.maxTable/uint32(len(fi.tableElems))))
	out = append(out, 0x58, 0x04) // i64.le_u; if
	out = wasmbin.AppendS64(out, int64(fi.growType[fi.tableElems[t]]))
	out = append(out, 0x20)
	return wasmbin.AppendU32(out, length)
}
