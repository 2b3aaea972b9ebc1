package fuel

import (
	"math"

	"github.com/wasmagent/wasmagent/runtime/internal/wasmbin"
)

// FuncCost measures one function's code in what makes wazero's optimising
// compiler slow: its passes are quadratic or worse in these, not in bytes
// (runtime/compilecost.go weighs them; SECURITY.md has the figures).
//
// The compiler's dominator, loop-detection and loop-forest passes walk
// the dominator tree from every basic block, and its SSA construction
// walks back from every local read through blocks of one predecessor: so
// what costs is how deep each block and each read sits in the dominator
// tree. The walk tracks an upper bound of that depth through the
// structured control flow: an if, a br_if and a loop header each start a
// block one deeper; the block after an end sits one below the shallowest
// of its predecessors (their common dominator is no deeper); code after
// br, br_table, return or unreachable is not compiled, and not counted.
type FuncCost struct {
	Func        uint32 // the function's index in the original module
	Branches    int    // branch edges: if (two), br, br_if, every br_table target, loop (its fuel check)
	Joins       int    // blocks, ifs and loops: where control flow may merge
	Written     int    // distinct locals written (set or tee): each may need a phi at every join
	LoopDepth   int    // the deepest nesting of loops
	BlockDepths int64  // the sum of the dominator depth of every basic block
	ReadDepths  int64  // the sum of the dominator depth of every local.get
	EdgeDepths  int64  // the sum over branch edges of the source's depth
	LabelDepths int64  // the sum over branch edges of the labels crossed (the compiler walks its frames)
	Targets     int    // br_table targets (the default included): each a block and a jump of its own
	Locals      int    // locals declared (parameters not included): each zeroed by code the compiler writes at entry
	EdgeArgs    int64  // the values branch edges carry (their label's arity, summed): each a phi argument
	CallArgs    int64  // the parameters and results of every call (each moved to or from its place in the call)
	BlockArgs   int64  // the parameters and results of every block, loop and if (each merged where it ends)
}

// costFrame is an open block, if or loop.
type costFrame struct {
	op       byte  // 0x02 block, 0x03 loop, 0x04 if, 0 the function
	start    int32 // the depth where it starts
	minPred  int32 // the shallowest branch to its end so far (math.MaxInt32: none)
	live     bool  // its start is reachable
	elseSeen bool
	arity    int32 // the values a branch to its label carries: a loop's parameters, the results of the others
}

// costWalk counts a body's FuncCost as the walker reads it.
type costWalk struct {
	c      FuncCost
	loops  int
	depth  int32 // the dominator depth of the current block
	live   bool  // the current code is reachable
	frames []costFrame
	stamp  []uint32 // stamp[l] == gen: local l was counted as written in this body
	gen    uint32
	// params and results are the block type read last, for the frame
	// opened next.
	params, results int32
}

const noPred = math.MaxInt32

func (cw *costWalk) start(f, locals uint32) {
	cw.c = FuncCost{Func: f}
	cw.loops, cw.depth, cw.live = 0, 0, true
	cw.frames = append(cw.frames[:0], costFrame{op: 0, minPred: noPred, live: true, arity: cw.results})
	cw.params, cw.results = 0, 0
	cw.gen++
	if cw.gen == 0 { // wrapped: forget every old stamp
		clear(cw.stamp)
		cw.gen = 1
	}
	if int(locals) > len(cw.stamp) {
		cw.stamp = append(cw.stamp, make([]uint32, int(locals)-len(cw.stamp))...)
	}
}

// block starts a new basic block at depth d.
func (cw *costWalk) block(d int32) {
	cw.depth = d
	cw.c.BlockDepths += int64(d)
}

// read counts a local.get, write a local.set or local.tee (l is in
// range: checked first).
func (cw *costWalk) read() {
	if cw.live {
		cw.c.ReadDepths += int64(cw.depth)
	}
}

func (cw *costWalk) write(l uint32) {
	if cw.stamp[l] != cw.gen {
		cw.stamp[l] = cw.gen
		cw.c.Written++
	}
}

// branch counts an edge to label l from the current block.
func (cw *costWalk) branch(l uint32) {
	cw.c.Branches++
	if !cw.live || int(l) >= len(cw.frames) {
		return
	}
	cw.c.EdgeDepths += int64(cw.depth) + 1
	cw.c.LabelDepths += int64(l)
	f := &cw.frames[len(cw.frames)-1-int(l)]
	cw.c.EdgeArgs += int64(f.arity)
	if f.op != 0x03 { // a loop's label is its header: a back edge
		f.minPred = min(f.minPred, cw.depth)
	}
}

// blockType records the block type just read, for the block, loop or if
// op opens next (the function's label: at its start).
func (cw *costWalk) blockType(params, results int) {
	cw.params, cw.results = int32(params), int32(results)
}

// call counts a call of a function of type t.
func (cw *costWalk) call(t wasmbin.FuncType) {
	cw.c.CallArgs += int64(len(t.Params) + len(t.Results))
}

// opened is a frame for op, with its label's arity.
func (cw *costWalk) opened(op byte) costFrame {
	cw.c.BlockArgs += int64(cw.params + cw.results)
	f := costFrame{op: op, start: cw.depth, minPred: noPred, live: cw.live, arity: cw.results}
	if op == 0x03 {
		f.arity = cw.params
	}
	cw.params, cw.results = 0, 0
	return f
}

// op counts a control instruction (br, br_if and br_table's targets
// are counted by branch first).
func (cw *costWalk) op(op byte) {
	switch op {
	case 0x02: // block
		cw.c.Joins++
		cw.frames = append(cw.frames, cw.opened(op))
	case 0x03: // loop: its header, then its fuel check (an if)
		cw.c.Joins++
		cw.c.Branches++
		cw.loops++
		cw.c.LoopDepth = max(cw.c.LoopDepth, cw.loops)
		cw.frames = append(cw.frames, cw.opened(op))
		if cw.live {
			cw.block(cw.depth + 1)
			cw.block(cw.depth + 1)
		}
	case 0x04: // if
		cw.c.Joins++
		cw.c.Branches += 2
		cw.frames = append(cw.frames, cw.opened(op))
		if cw.live {
			cw.block(cw.depth + 1)
		}
	case 0x05: // else
		f := &cw.frames[len(cw.frames)-1]
		if cw.live {
			f.minPred = min(f.minPred, cw.depth)
		}
		f.elseSeen = true
		cw.live = f.live
		if cw.live {
			cw.block(f.start + 1)
		}
	case 0x0b: // end
		cw.end()
	case 0x0c, 0x0e, 0x0f, 0x00, 0x12, 0x13: // br, br_table, return, unreachable, return_call*
		cw.live = false
	case 0x0d: // br_if: the fallthrough is a new block
		if cw.live {
			cw.block(cw.depth + 1)
		}
	}
}

func (cw *costWalk) end() {
	n := len(cw.frames) - 1
	f := cw.frames[n]
	if n == 0 {
		return // the function's end
	}
	cw.frames = cw.frames[:n]
	pred := f.minPred
	if cw.live {
		pred = min(pred, cw.depth)
	}
	if f.op == 0x04 && !f.elseSeen && f.live {
		pred = min(pred, f.start) // the if's false edge
	}
	if f.op == 0x03 {
		cw.loops--
	}
	cw.live = pred != noPred
	if cw.live {
		cw.block(pred + 1)
	}
}
