// Package eventwire writes agent events for clients outside the process:
// one JSON object per event with pi's names and fields, within a bound on
// the bytes each assistant message costs. `wasmagent run --json` and
// `wasmagent rpc` (host/rpc) write through it, and every later transport
// (HTTP with SSE) is meant to.
//
// The bound exists because pi's message_update carries the whole partial
// message, twice (as "message" and as "assistantMessageEvent.partial"):
// streaming a message of S bytes in n fragments writes about n × S bytes,
// and an 800 KB tool argument in 4 KB fragments becomes 165 MB of output.
// An Encoder gives a message's updates a budget of Floor + Ratio × S bytes
// (S the message's size so far) and holds back what does not fit; the
// message_end line always carries the whole message. docs/events.md says
// which clients see what in each mode; RATIONALE.md ("Why a byte budget
// per message…?") says why the bound is shaped so.
//
// Modes:
//
//  1. ModePi (the default): every line is one pi sends. Updates go out as
//     they come while the message's budget allows; past it, an update is
//     held until the budget has grown enough to send it, and consecutive
//     deltas of one block merge into one update (delta concatenated,
//     message as after the last). A held update that a later one of
//     another block or kind supersedes is dropped, except a held delta,
//     which still goes out while the message has spent less than twice
//     its budget. Every message and partial sent is exact; the updates of
//     a message spend at most 2 × (Floor + Ratio × M), M the message's
//     size.
//  2. ModeDeltas: message_update lines carry no "message" and no
//     "partial" — only what changed. Nothing is ever dropped: starts and
//     ends go out as they come, and past the budget the deltas of each
//     block are held and merged (a block's before its end).
//  3. ModeAll: every event as pi sends it, without a bound (to diff a run
//     against pi's own, and to measure what the bound saves).
//
// In ModePi and ModeDeltas a tool call's tool_execution_update lines have
// a budget of their own, Floor + Ratio × P, P the bytes of the partial
// results the tool has sent in that call: each line carries the call's
// arguments, and an update past the budget is dropped (the next one
// supersedes it; tool_execution_end carries the result). ModeAll sends
// every one.
//
// An Encoder is safe for concurrent use; events must come in the order the
// agent emits them (one Agent's listener does that).
package eventwire
