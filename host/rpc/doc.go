// Package rpc is pi-coding-agent's RPC mode for a wasmagent session:
// commands as JSON lines on one stream, responses and events as JSON
// lines on another, so pi's own RpcClient, and any client written for
// pi, drives wasmagent unchanged.
//
// Framing is strict JSONL: records end at LF only; a CR before it is
// dropped; U+2028 and U+2029 are text, never line ends (the output
// writes them as they are, as pi does). Every line written is the bytes
// pi's JSON.stringify writes for it (host.MarshalJS), its objects' keys
// in pi's order. Each command may carry an "id", echoed in its response. Events are the session's, encoded exactly as "wasmagent run
// --json" prints them, within the same byte budget (host/eventwire,
// Options.Events), and carry no id.
//
// Delivery rules:
//  1. Commands are handled one at a time, in order; a prompt is answered
//     once accepted, and its run goes on while later commands are read.
//  2. A line that does not decode, an unknown command, or a command that
//     cannot run now is answered with success false and a reason; the
//     session goes on.
//  3. An event's line is written before the session hears of the next
//     event, and only after its message is in the session's log.
//
// A hook's question (host.Approver) goes to the client as pi's
// extension_ui_request "confirm" and waits for its extension_ui_response,
// or for the Agent's approval timeout, which declines it.
//
// See docs/rpc.md for the commands and where wasmagent differs from pi.
package rpc
