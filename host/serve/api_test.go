package serve

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPromptStreamsEvents(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	id := h.create("")
	events := h.openEvents(id, "", "")
	defer events.close()
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"call 2"}`)
	got := events.until(t, "agent_end")
	var types []string
	for i, ev := range got {
		if want := i + 1; ev.ID != itoa(want) {
			t.Fatalf("event %d has id %q", i, ev.ID)
		}
		types = append(types, eventType(ev.Data))
	}
	joined := strings.Join(types, " ")
	for _, want := range []string{"agent_start", "tool_execution_start", "tool_execution_end", "turn_end", "agent_end"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %s in %s", want, joined)
		}
	}
	var msgs struct{ Messages []json.RawMessage }
	json.Unmarshal(h.must(200, "GET", "/v1/sessions/"+id+"/messages", "", ""), &msgs)
	// user, assistant (2 calls), 2 results, assistant "done"
	if len(msgs.Messages) != 5 {
		t.Fatalf("%d messages: %s", len(msgs.Messages), msgs.Messages)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
