package serve

import (
	"encoding/json"
	"strings"
	"testing"
)

// The page marks blocked, rewritten and asked calls from hook_decision
// events: each comes between its call's tool_execution_start and
// tool_execution_end, and a block carries the hook's reason.
func TestHookDecisionsInTheStream(t *testing.T) {
	h := newHarness(t, harnessOpts{quota: Quota{ToolCallsPerMinute: 3}})
	id := h.create("")
	ev := h.openEvents(id, "", "")
	defer ev.close()
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"call 5"}`)
	open := map[string]bool{}  // calls between start and end
	ended := map[string]bool{} // calls whose end was seen
	blocks := map[string]string{}
	decisions := 0
	for _, e := range ev.until(t, "agent_end") {
		var x struct {
			Type       string
			ToolCallID string
			Decision   string
			Kind       string
			Reason     string
			Args       json.RawMessage
		}
		if err := json.Unmarshal([]byte(e.Data), &x); err != nil {
			t.Fatalf("event %s: %v", e.Data, err)
		}
		switch x.Type {
		case "tool_execution_start":
			open[x.ToolCallID] = true
		case "tool_execution_end":
			delete(open, x.ToolCallID)
			ended[x.ToolCallID] = true
		case "hook_decision":
			decisions++
			if !open[x.ToolCallID] {
				t.Errorf("hook_decision for %q outside its tool_execution_start..end: %s", x.ToolCallID, e.Data)
			}
			if strings.Contains(e.Data, `"args"`) || strings.Contains(e.Data, `"arguments"`) {
				t.Errorf("hook_decision carries arguments: %s", e.Data)
			}
			if x.Decision == "block" {
				blocks[x.ToolCallID] = x.Reason
			}
		}
	}
	if len(blocks) != 2 {
		t.Fatalf("%d blocked calls reported by hook_decision, want 2 (%d decisions in all)", len(blocks), decisions)
	}
	for call, reason := range blocks {
		if !ended[call] || !strings.Contains(reason, "tool calls per minute") {
			t.Errorf("blocked call %s: ended %v, reason %q", call, ended[call], reason)
		}
	}
}
