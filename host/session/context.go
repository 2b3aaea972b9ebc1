package session

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wasmagent/wasmagent/host"
)

// View is what one branch of a transcript gives the Agent: its messages,
// the entry id of each, and the settings recorded along it.
type View struct {
	Messages      []host.Message
	EntryIDs      []string // EntryIDs[i] is the entry Messages[i] came from
	ThinkingLevel string   // "" when the branch records none
}

// View builds the context of the branch ending at leaf, as pi's
// buildSessionContext: messages of "message" entries, custom_message and
// branch_summary entries as custom messages, and after a compaction its
// summary first, then the entries it kept and those after it.
func (t *Transcript) View(leaf string) View {
	path := t.Branch(leaf)
	var v View
	compaction := -1
	for i, e := range path {
		switch e.Type {
		case TypeThinkingLevel:
			v.ThinkingLevel = e.ThinkingLevel
		case TypeCompaction:
			compaction = i
		}
	}
	if compaction < 0 {
		for _, e := range path {
			v.add(e)
		}
		return v
	}
	var c struct {
		Summary          string `json:"summary"`
		FirstKeptEntryID string `json:"firstKeptEntryId"`
		TokensBefore     int    `json:"tokensBefore"`
	}
	json.Unmarshal(path[compaction].Raw, &c)
	v.Messages = append(v.Messages, custom("compactionSummary", path[compaction], "summary", "tokensBefore"))
	v.EntryIDs = append(v.EntryIDs, path[compaction].ID)
	kept := false
	for _, e := range path[:compaction] {
		kept = kept || e.ID == c.FirstKeptEntryID
		if kept {
			v.add(e)
		}
	}
	for _, e := range path[compaction+1:] {
		v.add(e)
	}
	return v
}

func (v *View) add(e Entry) {
	var m host.Message
	switch e.Type {
	case TypeMessage:
		m = e.Message
	case TypeCustomMessage:
		m = custom("custom", e, "customType", "content", "display", "details")
	case TypeBranchSummary:
		var b struct {
			Summary any `json:"summary"`
		}
		json.Unmarshal(e.Raw, &b)
		if !truthy(b.Summary) {
			return
		}
		m = custom("branchSummary", e, "summary", "fromId")
	default:
		return
	}
	v.Messages = append(v.Messages, m)
	v.EntryIDs = append(v.EntryIDs, e.ID)
}

// custom is the message pi makes of entry e (createCustomMessage and
// its kin): role, then the entry's members named (those it has, as they
// are), then the entry's time in milliseconds as `new Date(timestamp)`
// reads it (jsTime).
func custom(role string, e Entry, names ...string) *host.CustomMessage {
	var all map[string]json.RawMessage
	json.Unmarshal(e.Raw, &all)
	b := []byte(`{"role":`)
	r, _ := json.Marshal(role)
	b = append(b, r...)
	for _, n := range names {
		if v, ok := all[n]; ok {
			k, _ := json.Marshal(n)
			b = append(append(append(append(b, ','), k...), ':'), v...)
		}
	}
	b = append(b, `,"timestamp":`...)
	b = jsTime(b, all["timestamp"])
	return &host.CustomMessage{Role: role, Raw: append(b, '}')}
}

// jsTime appends what `new Date(v).getTime()` gives for the JSON value
// v (nil: absent), as JSON: a time string's milliseconds, a number's
// whole part (JavaScript's TimeClip), null as 0 and booleans as 0 and 1;
// null (NaN) for a string that is no time, a number past ±8.64e15, and
// anything else.
func jsTime(b []byte, v json.RawMessage) []byte {
	var x any
	if v == nil || json.Unmarshal(v, &x) != nil {
		return append(b, "null"...)
	}
	switch x := x.(type) {
	case nil:
		return append(b, '0')
	case bool:
		if x {
			return append(b, '1')
		}
		return append(b, '0')
	case float64:
		if math.Abs(x) > 8.64e15 {
			return append(b, "null"...)
		}
		return strconv.AppendInt(b, int64(x), 10) // toward zero, as TimeClip
	case string:
		if t, err := parseTime(x); err == nil {
			return strconv.AppendInt(b, t.UnixMilli(), 10)
		}
	}
	return append(b, "null"...)
}

// truthy is JavaScript's truthiness of a decoded JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	}
	return true
}

// InterruptedText is the content of the error result given to a tool call
// that had no result when its session was loaded.
const InterruptedText = "Tool call interrupted: wasmagent stopped before this call returned a result. It may or may not have run, and any side effects it has may or may not have happened."

// Interrupted lists the tool calls of the last assistant message of
// messages that have no result after it, and returns the error results
// that close them: pi's loop requires every tool call to be answered
// before the transcript may continue.
func Interrupted(messages []host.Message, now int64) (calls []host.ToolCall, results []*host.ToolResultMessage) {
	last := -1
	for i := len(messages) - 1; i >= 0; i-- {
		if messages[i].MessageRole() == host.RoleAssistant {
			last = i
			break
		}
	}
	if last < 0 {
		return nil, nil
	}
	a := messages[last].(*host.AssistantMessage)
	answered := map[string]bool{}
	for _, m := range messages[last+1:] {
		if r, ok := m.(*host.ToolResultMessage); ok {
			answered[r.ToolCallID] = true
		}
	}
	for _, c := range a.Content.ToolCalls() {
		if answered[c.ID] {
			continue
		}
		answered[c.ID] = true
		calls = append(calls, c)
		results = append(results, &host.ToolResultMessage{
			ToolCallID: c.ID, ToolName: c.Name, Content: host.Text(InterruptedText), IsError: true, Timestamp: now,
		})
	}
	return calls, results
}

// DescribeInterrupted is the warning shown for interrupted calls.
func DescribeInterrupted(calls []host.ToolCall) string {
	if len(calls) == 0 {
		return ""
	}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = fmt.Sprintf("%s (%s) %s", c.Name, c.ID, host.ArgumentsJSON(c.Arguments))
	}
	return fmt.Sprintf("%d tool call(s) were interrupted and got error results; they may have had side effects: %s", len(calls), strings.Join(names, "; "))
}
