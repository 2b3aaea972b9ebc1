package runtime

import (
	"fmt"
	"math"

	"github.com/wasmagent/wasmagent/runtime/internal/fuel"
)

// Compiling is bounded by a cost measured on the code before wazero sees
// it (RATIONALE.md, "Why is a module's compile cost measured, and what
// does it count?"). wazero's optimising compiler cannot be stopped once
// it has started on a function, and its passes are quadratic or worse in
// how deep the function's blocks and local reads sit in its dominator
// tree (a run of sequential ifs or br_ifs), in its branch edges times the
// locals written (phi arguments), and in its loop nesting. So each
// function is weighed in these (internal/fuel/cost.go counts them), in
// units of about 25 ns of one core's compile time on the machine
// SECURITY.md measured on:
//
//	cost = depthWeight·(blockDepths + readDepths + edgeDepths) + labelDepths/labelDivisor
//	       + phiWeight·branches·(written+1) + loopWeight·joins·loopDepth·(written+1)
//	       + tableWeight·brTableTargets + localWeight·localsDeclared
//	       + phiWeight·(edgeArgs + callArgs) + blockWeight·blockArgs
//
// A branch carries its label's values (a block's results, a loop's
// parameters), each a phi argument as a local written is: 4,000 br_ifs
// back to a loop of 1,000 parameters, a 21 KB module, took 8.4 s. A call
// moves its arguments and results (4,000 calls in a row of a function
// taking and giving 1,000 values, 16 KB, took 30 s), and a block, loop
// or if merges its parameters and results where it ends (1,000 blocks
// of 1,000 values, 8 KB, 1.3 s): a few bytes each, any number of values.
//
// A declared local is compiled into code that zeroes it at the function's
// entry: a local is a byte or two in the module and about 8 bytes of
// machine code the module holds for as long as it is loaded, so its
// weight is set by that memory, not by the time (about 50 ns each). The
// locals of every function count in the module's total, cheap functions
// included: 1,000 functions of 50,000 locals, a 10 KB module, took 11 s
// to compile and 400 MB of machine code.
//
// A module whose function costs more than MaxFunctionCompileCost, or
// whose functions together cost more than MaxModuleCompileCost, is
// refused before it is compiled. These are the defaults: an operator
// who trusts a plugin the model over-counts raises the cap on one
// function with Options.MaxCompileCost (agent.toml's [runtime]
// max_compile_cost), and the module's cap follows at ten times it.
const (
	// MaxFunctionCompileCost bounds one function's cost: at most about
	// 3 s of one core on the measured machine for every generated shape
	// at the cap (SECURITY.md, row 15), while a standard-Go plugin's
	// costliest function costs 4e6–6e6 and a Go switch of 3,000 cases
	// (31,000 branch edges in one function) 5.3e7.
	MaxFunctionCompileCost = 1.5e8
	// MaxModuleCompileCost bounds the sum over a module's functions that
	// cost more than minCountedCost each: ten functions at the cap. (The
	// cheaper ones compile in time linear in their size, as any code.)
	MaxModuleCompileCost = moduleFactor * MaxFunctionCompileCost
	moduleFactor         = 10
	minCountedCost       = 1e6 // about 25 ms

	depthWeight  = 2
	labelDivisor = 8 // a label crossed is a step of a tight loop
	phiWeight    = 200
	loopWeight   = 6
	tableWeight  = 600
	blockWeight  = 64
	localWeight  = 256 // the module's cap admits about 6 million locals: 47 MB of machine code
)

// CompileCostError names the function (or the whole module, Func -1)
// whose compile cost is over the cap, the cost, the cap, and the counts
// the costliest function's cost is made of. It matches [ErrCompileCost].
type CompileCostError struct {
	Func      int   // the function's index in the module's function space; -1: the module's total
	Cost      int64 // its cost (compilecost.go)
	Limit     int64 // the Runtime's cap on one function (Options.MaxCompileCost) or on a module (10×)
	Worst     int   // the costliest function
	Branches  int   // its counts
	Written   int
	Joins     int
	LoopDepth int
	Depths    int64 // the dominator depths of its blocks, local reads and branch edges, summed
	Labels    int64 // the labels its branch edges cross, summed
	Locals    int   // the locals it declares
	EdgeArgs  int64 // the values its branch edges carry, summed
	CallArgs  int64 // the parameters and results of its calls, summed
	BlockArgs int64 // the parameters and results of its blocks, loops and ifs, summed

	worstCost, total int64 // the costliest function's cost; the module's total
}

func (e *CompileCostError) Error() string {
	what, limit := fmt.Sprintf("function %d", e.Func), "runtime.Options.MaxCompileCost"
	if e.Limit == MaxFunctionCompileCost {
		limit = "runtime.MaxFunctionCompileCost, the default"
	}
	if e.Func < 0 {
		what, limit = "the module's functions together", "10 × runtime.Options.MaxCompileCost"
		if e.Limit == MaxModuleCompileCost {
			limit = "runtime.MaxModuleCompileCost, the default"
		}
	}
	return fmt.Sprintf("%s would cost the compiler %d, over the host's limit of %d (%s; function %d: %d branch edges, %d locals written, %d joins, loops nested %d deep, dominator depths summing to %d, labels crossed %d, %d locals declared, values carried by branches %d, by calls %d, by blocks %d); to load a plugin you trust, raise the limit to %d (runtime.Options.MaxCompileCost) or more: in agent.toml, [runtime] max_compile_cost = %d",
		what, e.Cost, e.Limit, limit, e.Worst, e.Branches, e.Written, e.Joins, e.LoopDepth, e.Depths, e.Labels, e.Locals, e.EdgeArgs, e.CallArgs, e.BlockArgs, e.Enough(), e.Enough())
}

// Enough is the least Options.MaxCompileCost that admits the module: the
// costliest function's cost, or a tenth of the module's total rounded
// up, whichever is more.
func (e *CompileCostError) Enough() int64 {
	return max(e.worstCost, e.total/moduleFactor+min(e.total%moduleFactor, 1))
}

func (e *CompileCostError) Is(target error) bool { return target == ErrCompileCost }

// functionCost weighs one function (see above).
func functionCost(c fuel.FuncCost) int64 {
	b, j := int64(c.Branches), int64(c.Joins)
	w := int64(c.Written + 1)
	return depthWeight*(c.BlockDepths+c.ReadDepths+c.EdgeDepths) + c.LabelDepths/labelDivisor + phiWeight*b*w + tableWeight*int64(c.Targets) + loopWeight*j*int64(c.LoopDepth)*w +
		localWeight*int64(c.Locals) + phiWeight*(c.EdgeArgs+c.CallArgs) + blockWeight*c.BlockArgs
}

// moduleCost is the costliest function, its cost, and the module's
// total: the sum of the costs over minCountedCost, and of every other
// function's locals.
func moduleCost(costs []fuel.FuncCost) (worst fuel.FuncCost, worstCost, total int64) {
	worstCost = -1
	for _, c := range costs {
		cost := functionCost(c)
		if cost > worstCost {
			worst, worstCost = c, cost
		}
		if cost > minCountedCost {
			total += cost
		} else {
			total += localWeight * int64(c.Locals)
		}
	}
	return worst, worstCost, total
}

// moduleCap is the cap on a module's costly functions together:
// moduleFactor times the cap on one (saturating; 0 means the default).
func moduleCap(maxFunc int64) int64 {
	if maxFunc > math.MaxInt64/moduleFactor {
		return math.MaxInt64
	}
	return moduleFactor * maxFunc
}

// checkCompileCost refuses code whose costliest function passes maxFunc
// (the Runtime's Options.MaxCompileCost; 0: MaxFunctionCompileCost) or
// whose costly functions together pass moduleCap(maxFunc), naming the
// costliest function.
func checkCompileCost(costs []fuel.FuncCost, maxFunc int64) error {
	if maxFunc <= 0 {
		maxFunc = MaxFunctionCompileCost
	}
	worst, worstCost, total := moduleCost(costs)
	e := &CompileCostError{Func: int(worst.Func), Cost: worstCost, Limit: maxFunc, Worst: int(worst.Func),
		Branches: worst.Branches, Written: worst.Written, Joins: worst.Joins, LoopDepth: worst.LoopDepth, Depths: worst.BlockDepths + worst.ReadDepths + worst.EdgeDepths, Labels: worst.LabelDepths, Locals: worst.Locals, EdgeArgs: worst.EdgeArgs, CallArgs: worst.CallArgs, BlockArgs: worst.BlockArgs,
		worstCost: worstCost, total: total}
	switch {
	case worstCost > maxFunc:
		return e
	case total > moduleCap(maxFunc):
		e.Func, e.Cost, e.Limit = -1, total, moduleCap(maxFunc)
		return e
	}
	return nil
}
