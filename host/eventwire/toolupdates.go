package eventwire

import (
	"encoding/json"

	"github.com/wasmagent/wasmagent/host"
)

// A tool call's tool_execution_update lines have a budget too, as a
// message's updates have: Floor + Ratio × P, P the bytes of the partial
// results the tool has sent so far in the call. Each line carries the
// call's arguments beside its partial result (as pi's does), so a tool
// sending many small updates on a large argument wrote the argument
// once per update: 10,000 empty updates, what a plugin's default grant
// allows, on 1 MB of arguments wrote 10 GB into serve's journal, and on
// to every client. An update over the budget is dropped: each partial
// result stands for the whole progress of the call (pi renders the
// latest), the next update supersedes it, and tool_execution_end carries
// the result. So what one call's updates write is bounded by what its
// grant lets it send (Grants.MaxUpdateBytes), not by its count times the
// arguments (RATIONALE.md, "Why do a tool call's updates have a
// budget?").

// toolBudget is what one tool call's updates have spent.
type toolBudget struct {
	spent   int64 // bytes of its update lines sent
	partial int64 // bytes of the partial results it sent, dropped or not
}

// toolUpdate sends u if its call's budget allows it, and drops it
// otherwise.
func (w *Encoder) toolUpdate(u host.ToolExecutionUpdateEvent) {
	if w.tools == nil {
		w.tools = map[string]*toolBudget{}
	}
	b := w.tools[u.ToolCallID]
	if b == nil {
		b = &toolBudget{}
		w.tools[u.ToolCallID] = b
	}
	size := partialSize(u.PartialResult)
	b.partial += size
	allowance := w.opts.Floor + w.opts.Ratio*b.partial
	// A lower bound of the line's size: estimated before encoding, so
	// that an update dropped costs no encoding of its arguments.
	est := int64(80+len(u.ToolCallID)+len(u.ToolName)+len(u.Args)) + size
	if b.spent+est > allowance {
		return
	}
	line, err := host.MarshalEvent(u)
	if err != nil {
		w.err = err
		return
	}
	if b.spent+int64(len(line)+1) > allowance {
		return
	}
	b.spent += int64(len(line) + 1)
	w.err = w.send(line)
}

// partialSize is the size of a partial result as a tool gave it: a Wasm
// tool's JSON as it is, anything else encoded.
func partialSize(p any) int64 {
	switch v := p.(type) {
	case nil:
		return 0
	case json.RawMessage:
		return int64(len(v))
	case string:
		return int64(len(v))
	}
	b, _ := json.Marshal(p)
	return int64(len(b))
}
