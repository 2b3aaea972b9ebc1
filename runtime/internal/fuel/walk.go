package fuel

import (
	"bytes"
	"fmt"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
)

// walker copies instructions, remapping function indices, checking every
// index against the module's own counts, and inserting fuel checks.
//
// What it copies unchanged it copies in spans: out holds the input up to
// copied, and the bytes read since are appended (flush) only where the
// output differs from the input: before an insertion or a remapped
// index. A Go plugin's code is some 99% unchanged bytes, which were
// appended an immediate at a time (under the race detector, most of a
// test's time instrumenting one).
type walker struct {
	fi       *info
	r        *wasmbin.Reader
	out      []byte
	copied   int    // r.B[:copied] is in out (its changes included)
	discard  bool   // a constant expression only checked: nothing is written
	locals   uint32 // valid local indices are below this
	scratch  uint32
	checks   bool // insert fuel checks (function bodies, not constants)
	constant bool // a constant expression: only constant instructions

	ctl     []bool   // open blocks, ifs and loops: is it a loop
	regions []region // [0] the function level, then the open loops
	coverAt int      // offset of the weight of the loop that covers the entry (0: none)

	usesLen      bool  // a bulk instruction's length is kept in local scratch+2
	sawCall      bool  // the body calls something (call*, return_call*)
	entryCovered bool  // a loop header runs, unconditionally, before anything else transfers control
	coverWeight  int64 // the weight of that loop's own region
	done         bool  // entryCovered is decided
	exits        []int // offsets in out of return and return_call* (the depth is restored there)

	scratchBuf [5]byte // a remapped index's encoding
}

// copyU32 copies an unsigned 32-bit LEB128 as it is encoded. Re-encoding
// would make an over-long encoding canonical, and a validator may refuse
// the long form where the short one passes (a reserved zero byte must be
// one byte).
func (w *walker) copyU32() uint32 { return w.r.U32() }

// flush appends the input from copied to to, unchanged.
func (w *walker) flush(to int) {
	if !w.discard {
		w.out = append(w.out, w.r.B[w.copied:to]...)
	}
	w.copied = to
}

// outLen is the length out will have once the input read so far is
// flushed.
func (w *walker) outLen() int { return len(w.out) + w.r.Pos - w.copied }

// replace writes the encoding b in place of the input from start to the
// current position.
func (w *walker) replace(start int, b []byte) {
	w.flush(start)
	w.out = append(w.out, b...)
	w.copied = w.r.Pos
}

// straight follows the entry of the body: it stays undecided while
// instructions run one after the other (a block entered, no branch, call,
// if, end, return or trap), and decides entryCovered at the first one
// that does not, or at the first loop header.
func (w *walker) straight(op byte) {
	if w.done {
		return
	}
	switch {
	case op == 0x03:
		w.entryCovered, w.done = true, true
	case op == 0x01 || op == 0x02 || op >= 0x1a:
		// nop, block, and every instruction that does not transfer control
	default:
		w.done = true
	}
}

func (w *walker) funcIndex() error {
	start := w.r.Pos
	f, err := w.fi.remapFunc(w.r.U32())
	if err != nil {
		return err
	}
	w.remapped(start, f)
	return nil
}

// remapped writes the function index f in place of the one read from
// start, re-encoded as the rewrite always did (an over-long encoding
// becomes the shortest), unless that is the same bytes.
func (w *walker) remapped(start int, f uint32) {
	if enc := wasmbin.AppendU32(w.scratchBuf[:0], f); !bytes.Equal(enc, w.r.B[start:w.r.Pos]) {
		w.replace(start, enc)
	}
}

func (w *walker) typeIndex() error {
	if t := w.copyU32(); t >= w.fi.nTypes {
		return fmt.Errorf("type index %d out of range", t)
	}
	return nil
}

func (w *walker) globalIndex() error {
	if g := w.copyU32(); g >= w.fi.nGlobals {
		return fmt.Errorf("global index %d out of range", g)
	}
	return nil
}

func (w *walker) localIndex(op byte) error {
	l := w.copyU32()
	if l >= w.locals {
		return fmt.Errorf("local index %d out of range", l)
	}
	if w.checks && op == 0x20 {
		w.fi.cw.read()
	} else if w.checks {
		w.fi.cw.write(l)
	}
	return nil
}

// label counts a branch to label l (cost.go).
func (w *walker) label(l uint32) {
	if w.checks {
		w.fi.cw.branch(l)
	}
}

// blockType copies a block type: empty, a value type, or a type index.
func (w *walker) blockType() error {
	c := w.r.Peek()
	switch c {
	case 0x40, 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
		w.r.Byte()
		if w.checks {
			w.fi.cw.blockType(0, int(b2u(c != 0x40)))
		}
		return nil
	}
	if c&0x80 == 0 && c&0x40 != 0 {
		return fmt.Errorf("block type 0x%x not supported", c)
	}
	t := w.r.Sleb(33)
	if t < 0 || t >= int64(w.fi.nTypes) {
		return fmt.Errorf("block type index %d out of range", t)
	}
	if w.checks {
		ft := w.fi.types[t]
		w.fi.cw.blockType(len(ft.Params), len(ft.Results))
	}
	return nil
}

// memarg copies an alignment (with an optional memory index) and offset.
func (w *walker) memarg() {
	align := w.copyU32()
	if align&0x40 != 0 {
		w.copyU32()
	}
	w.r.Uleb(64)
}

// instr copies one instruction and returns its opcode.
func (w *walker) instr() (byte, error) {
	r := w.r
	opStart := r.Pos
	op := r.Byte()
	if r.Err != nil {
		return 0, r.Err
	}
	if w.constant && !constOp(op) {
		return 0, fmt.Errorf("instruction 0x%x in a constant expression", op)
	}
	if w.checks {
		w.straight(op)
		if op == 0x0f || op == 0x12 || op == 0x13 {
			w.exits = append(w.exits, len(w.out)+opStart-w.copied)
		}
	}
	if w.checks && (op == 0x26 || op == 0xfc && w.tableWriteFC()) {
		w.fi.writesTables = true
	}
	var grow bool
	if w.checks && op == 0xfc {
		grow = w.bulk(opStart)
	}
	var err error
	switch {
	case op == 0x00 || op == 0x01 || op == 0x05 || op == 0x0b || op == 0x0f || op == 0x1a || op == 0x1b:
		// no immediates
	case op == 0x02 || op == 0x04:
		err = w.blockType()
	case op == 0x03: // loop: its body starts with a check
		if err = w.blockType(); err == nil && w.checks {
			w.openLoop()
		}
	case op == 0x0c || op == 0x0d:
		w.label(w.copyU32())
	case op == 0x0e:
		n := w.copyU32()
		for i := uint32(0); i <= n && r.Err == nil; i++ {
			w.label(w.copyU32())
		}
		if w.checks {
			w.fi.cw.c.Targets += int(n) + 1
		}
	case op == 0x10 || op == 0x12: // call, return_call
		// Imported functions are the host's, which never calls back
		// into the module: calling one starts no cycle.
		w.countCall()
		start := r.Pos
		f := r.U32()
		w.sawCall = w.sawCall || f >= w.fi.nImportedFuncs
		var g uint32
		if g, err = w.fi.remapFunc(f); err == nil {
			w.remapped(start, g)
			if w.checks {
				t := w.fi.importTypes
				if f >= w.fi.nImportedFuncs {
					t = w.fi.funcTypes
					f -= w.fi.nImportedFuncs
				}
				w.fi.cw.call(w.fi.types[t[f]])
			}
		}
	case op == 0x11 || op == 0x13: // call_indirect, return_call_indirect
		w.countCall()
		w.sawCall = true
		start := r.Pos
		if err = w.typeIndex(); err == nil {
			if w.checks {
				w.fi.cw.call(w.fi.types[wasmbin.NewReader(r.B[start:]).U32()])
			}
			w.copyU32() // table
		}
	case op == 0x1c: // typed select
		n := w.copyU32()
		for i := uint32(0); i < n && r.Err == nil; i++ {
			r.Byte()
		}
	case op >= 0x20 && op <= 0x22:
		err = w.localIndex(op)
	case op == 0x23 || op == 0x24:
		err = w.globalIndex()
	case op == 0x25 || op == 0x26:
		w.copyU32()
	case op >= 0x28 && op <= 0x3e:
		w.memarg()
	case op == 0x3f || op == 0x40:
		w.copyU32()
	case op == 0x41:
		r.Sleb(32)
	case op == 0x42:
		r.Sleb(64)
	case op == 0x43:
		r.Bytes(4)
	case op == 0x44:
		r.Bytes(8)
	case op >= 0x45 && op <= 0xc4:
		// numeric, no immediates
	case op == 0xd0: // ref.null
		r.Byte()
	case op == 0xd1:
	case op == 0xd2: // ref.func
		err = w.funcIndex()
	case op == 0xfc:
		err = w.prefixFC()
	case op == 0xfd:
		err = w.prefixFD()
	case op == 0xfe:
		err = w.prefixFE()
	default:
		return 0, fmt.Errorf("instruction 0x%x is not supported", op)
	}
	if err == nil {
		err = r.Err
	}
	if grow && err == nil {
		w.flush(r.Pos)
		w.out = append(w.out, 0x05, 0x1a, 0x41, 0x7f, 0x0b) // else drop; i32.const -1; end
	}
	return op, err
}

// tableWriteFC reports whether the 0xfc instruction being read changes a
// table: table.init (12), elem.drop (13), table.copy (14), table.grow (15),
// table.fill (17).
func (w *walker) tableWriteFC() bool {
	pr := &wasmbin.Reader{B: w.r.B, Pos: w.r.Pos}
	sub := pr.U32()
	return pr.Err == nil && sub >= 12 && sub <= 17 && sub != 16
}

// bulk writes what goes before a 0xfc instruction: a charge by length
// before memory.init/copy/fill and table.init/copy/fill, and a size check
// around table.grow (it reports whether the grow needs its else branch).
func (w *walker) bulk(opStart int) bool {
	pr := &wasmbin.Reader{B: w.r.B, Pos: w.r.Pos}
	sub := pr.U32()
	switch sub {
	case 8, 10, 11, 12, 14, 17:
		w.usesLen = true
		w.flush(opStart)
		w.out = w.fi.appendCharge(w.out, w.scratch, w.scratch+2)
	case 15:
		t := pr.U32()
		if pr.Err != nil || t >= uint32(len(w.fi.tableElems)) {
			return false // invalid: wazero refuses the module
		}
		w.usesLen = true
		w.flush(opStart)
		w.out = w.fi.appendGrowCheck(w.out, t, w.scratch+2)
		return true
	}
	return false
}

// constOp reports the instructions allowed in constant expressions
// (extended-const arithmetic included).
func constOp(op byte) bool {
	switch op {
	case 0x0b, 0x23, 0x41, 0x42, 0x43, 0x44, 0xd0, 0xd2, 0xfd, 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e:
		return true
	}
	return false
}

func (w *walker) prefixFC() error {
	sub := w.copyU32()
	switch {
	case sub <= 7: // saturating truncation
	case sub == 8: // memory.init data memory
		w.copyU32()
		w.copyU32()
	case sub == 9: // data.drop
		w.copyU32()
	case sub == 10: // memory.copy
		w.copyU32()
		w.copyU32()
	case sub == 11: // memory.fill
		w.copyU32()
	case sub == 12 || sub == 14: // table.init elem table, table.copy
		w.copyU32()
		w.copyU32()
	case sub == 13 || sub == 15 || sub == 16 || sub == 17: // elem.drop, table.grow/size/fill
		w.copyU32()
	default:
		return fmt.Errorf("instruction 0xfc %d is not supported", sub)
	}
	return nil
}

func (w *walker) prefixFD() error {
	sub := w.copyU32()
	switch {
	case w.constant && sub != 12:
		return fmt.Errorf("instruction 0xfd %d in a constant expression", sub)
	case sub <= 11 || sub == 92 || sub == 93: // loads and stores
		w.memarg()
	case sub == 12 || sub == 13: // v128.const, i8x16.shuffle
		w.r.Bytes(16)
	case sub >= 21 && sub <= 34: // extract and replace lane
		w.r.Byte()
	case sub >= 84 && sub <= 91: // load and store lane
		w.memarg()
		w.r.Byte()
	case sub <= 0x113:
		// no immediates
	default:
		return fmt.Errorf("instruction 0xfd %d is not supported", sub)
	}
	return nil
}

func (w *walker) prefixFE() error {
	sub := w.copyU32()
	switch {
	case sub == 0x03: // atomic.fence
		w.r.Byte()
	case sub <= 0x02 || (sub >= 0x10 && sub <= 0x4e):
		w.memarg()
	default:
		return fmt.Errorf("instruction 0xfe %d is not supported", sub)
	}
	return nil
}
