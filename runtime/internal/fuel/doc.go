// Package fuel rewrites a WebAssembly module, once, before it is compiled,
// so that its code counts down a budget and calls the host's
// wasmagent.tick when the budget runs out (tick ends the call if its
// context is done, and otherwise refills the budget), and so that its call
// depth is bounded. It is what stops guest code at its deadline: wazero's
// own check (WithCloseOnContextDone) costs 4–20× and misses code without
// loops (docs/abi.md, "How a module is rewritten at load").
//
// # Where the checks go, and why that is enough
//
// A check is "budget -= weight, and tick when it is spent". The rule:
//
//  1. every loop body starts with a check;
//  2. a function starts with a check if it calls a function of the
//     module (call or return_call of a defined function, any
//     call_indirect or return_call_indirect) or has more than leafBytes
//     of code outside its loops — unless its body begins with a
//     straight-line prefix that reaches a loop header: only instructions
//     that never transfer control (no if, else, end, br*, return, call*,
//     unreachable), possibly entering blocks, before the first loop;
//  3. a check's weight is what its region (a loop body without its nested
//     loops, or a function body without its loops) can run before the
//     next check: one unit per bytesPerUnit bytes of code and callUnits
//     per call site; a loop check that covers its function's entry also
//     pays for the function's region. Bulk memory and table instructions
//     are charged by their length (one unit per 256 bytes or elements).
//
// Claim: between two ticks the module does at most about Budget units of
// work, so a deadline is noticed within that. Argument: a run of
// instructions without a check cannot take a loop back-edge (its target
// is a loop body start, rule 1), so within one activation it stays in one
// region, which its last check paid for. It cannot enter a function of the
// module that calls (rule 2: the entry check, or the prefix that runs in
// full before anything else and ends in a loop header, whose check
// therefore runs on every path before the first call). It can enter a
// function without a check, which has at most leafBytes outside its loops,
// or a host function, which never calls back into the module; each such
// call site is paid callUnits by the caller's region. It can return, into
// a region its check paid for, through at most depth-limit frames. So
// every cycle of execution — loop back-edges, direct and indirect
// recursion, call_indirect through tables changed at run time,
// return_call* — passes a check, and every check pays for what follows it.
// Nothing else is left out: the old exemption "a loop appears first in
// code order" was unsound (that loop may sit in an if, or after a br, and
// never run).
//
// # The call-depth limit
//
// A function that calls the module takes one from a depth global at entry,
// calling wasmagent:depth.exceeded (which ends the call with its own
// error) when none is left; it puts back the value it found before return
// and return_call*, and at its end. The body is wrapped in a block of the
// function's results, so a br, br_if or br_table to the function's label
// lands on the restore with no label renumbered. Functions that do not
// call the module add one frame at most and are not counted. A runaway
// recursion therefore ends after MaxCallDepth frames, in milliseconds,
// instead of at wazero's 400 MB call-stack ceiling.
//
// # What the rewrite adds, and why it cannot launder an invalid module
//
// One type () -> i64, two imports of it (tick, exceeded), a mutable i64
// budget and a mutable i32 depth global, one i64 scratch local per
// function and up to two i32 ones, a type () -> results for each
// multi-value result list of a function that takes parameters, and a type
// (ref) -> i32 per table element type (the guard of table.grow). Appending moves no type, global or local
// index; imported functions keep theirs and defined functions move up by
// two, so calls, ref.func, exports, the start function, element segments,
// constant expressions and the name section are remapped. Every index of a
// space the rewrite extends — types, functions, globals, locals, in code,
// constant expressions, imports and exports — is checked against the
// module's own counts first, so an out-of-range index cannot come to name
// what the rewrite adds; malformed integers, sections out of order and
// unknown instructions are refused; wazero then validates the result.
package fuel
