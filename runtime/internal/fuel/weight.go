package fuel

import "github.com/wasmagent/wasmagent/runtime/internal/wasmbin"

// A check charges the budget by the work that can run before the next
// check: its region's own code (a loop body without the loops nested in
// it, or a function body without its loops), at one unit per bytesPerUnit
// bytes, and callUnits for each call site in it (a host function's call,
// or a function with no check of its own: such a function has at most
// leafBytes of code outside its loops). So a tick comes after about the
// same amount of work whatever the shape of the code: a loop body of a
// megabyte, or one full of host calls, cannot run Budget times between
// two ticks.
const (
	bytesPerUnit = 8
	callUnits    = 32
	leafBytes    = callUnits * bytesPerUnit
)

// region is the code one check pays for.
type region struct {
	patch int // offset in out of the check's weight (padded to 5 bytes)
	begin int // offset in out where the loop's check begins
	start int // offset in out where the region's code begins
	inner int // bytes of the loops nested in it, checks included
	calls int // call sites
}

func weightOf(own, calls int) int64 {
	return min(1+int64(own/bytesPerUnit)+int64(callUnits*calls), Budget)
}

// openLoop writes the check that starts a loop body, its weight to be
// filled in at the loop's end.
func (w *walker) openLoop() {
	w.flush(w.r.Pos)
	begin := len(w.out)
	var patch int
	w.out, patch = w.fi.appendCheck(w.out, w.scratch, 0, true)
	w.ctl = append(w.ctl, true)
	w.regions = append(w.regions, region{patch: patch, begin: begin, start: len(w.out)})
	if w.entryCovered && w.coverAt == 0 {
		w.coverAt = patch
	}
}

// closeLoop fills in the weight of the loop that ends here.
func (w *walker) closeLoop() {
	r := w.regions[len(w.regions)-1]
	w.regions = w.regions[:len(w.regions)-1]
	end := w.outLen()
	weight := weightOf(end-r.start-r.inner, r.calls)
	if r.patch == w.coverAt {
		w.coverWeight = weight
	}
	putWeight(w.out, r.patch, weight)
	w.regions[len(w.regions)-1].inner += end - r.begin
}

func (w *walker) countCall() {
	if w.checks {
		w.regions[len(w.regions)-1].calls++
	}
}

// control follows the nesting of blocks, ifs and loops.
func (w *walker) control(op byte) {
	if w.checks {
		w.fi.cw.op(op)
	}
	switch op {
	case 0x02, 0x04:
		w.ctl = append(w.ctl, false)
	case 0x0b:
		if n := len(w.ctl); n > 0 {
			loop := w.ctl[n-1]
			w.ctl = w.ctl[:n-1]
			if loop {
				w.closeLoop()
			}
		}
	}
}

// entryCheck reports the weight of the function's entry check, or 0 when
// it needs none (it does not call and its code outside loops is small, or
// a loop header covers it: that loop's check is charged for it instead).
func (w *walker) entryCheck() int64 {
	fr := w.regions[0]
	own := w.outLen() - fr.inner
	if !w.sawCall && own <= leafBytes {
		return 0
	}
	weight := weightOf(own, fr.calls)
	if w.entryCovered {
		putWeight(w.out, w.coverAt, min(w.coverWeight+weight, Budget))
		return 0
	}
	return weight
}

// putWeight writes v (0 ≤ v < 2^27) as a 5-byte signed LEB128 at at.
func putWeight(b []byte, at int, v int64) {
	for i := range 4 {
		b[at+i] = byte(v>>(7*i))&0x7f | 0x80
	}
	b[at+4] = byte(v>>28) & 0x7f
}

// appendCheck writes a check: budget -= weight, and tick when it is
// spent (there is no global.tee, hence the scratch local). The budget is
// at least 1 after every check. With padded, the weight takes 5 bytes,
// to be filled in later at the offset returned.
func (fi *info) appendCheck(out []byte, scratch uint32, weight int64, padded bool) ([]byte, int) {
	g := fi.budgetGlobal()
	out = append(out, 0x23)
	out = wasmbin.AppendU32(out, g)
	out = append(out, 0x42)
	at := len(out)
	if padded {
		out = append(out, 0, 0, 0, 0, 0)
		putWeight(out, at, weight)
	} else {
		out = wasmbin.AppendS64(out, weight)
	}
	out = append(out, 0x7d, 0x22) // i64.sub; local.tee
	out = wasmbin.AppendU32(out, scratch)
	out = append(out, 0x24)
	out = wasmbin.AppendU32(out, g)
	out = append(out, 0x20)
	out = wasmbin.AppendU32(out, scratch)
	out = append(out, 0x42, 0x01, 0x53, 0x04, 0x40, 0x10) // 1; i64.lt_s; if; call
	out = wasmbin.AppendU32(out, fi.tickFunc())
	out = append(out, 0x24)
	out = wasmbin.AppendU32(out, g)
	return append(out, 0x0b), at
}
