package host_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
)

// eventsWith builds one event of each shape that carries s: text, thinking,
// tool-call arguments (valid and not), a tool result, a stream delta.
func eventsWith(s string) []host.Event {
	var str bytes.Buffer
	enc := json.NewEncoder(&str)
	enc.SetEscapeHTML(false) // arguments as a model sends them
	enc.Encode(s)
	args := json.RawMessage(`{"q":` + strings.TrimSpace(str.String()) + `}`)
	msg := &host.AssistantMessage{Content: host.Contents{
		host.TextContent{Text: s},
		host.ThinkingContent{Thinking: s},
		host.ToolCall{ID: "c1", Name: "t", Arguments: args},
		host.ToolCall{ID: "c2", Name: "t", Arguments: json.RawMessage(s)},
	}, ErrorMessage: s}
	return []host.Event{
		host.MessageEndEvent{Message: msg},
		host.MessageStartEvent{Message: &host.UserMessage{Content: host.Text(s)}},
		host.MessageUpdateEvent{Message: msg, AssistantMessageEvent: host.AssistantMessageEvent{Type: host.StreamTextDelta, Delta: s, Partial: msg}},
		host.ToolExecutionStartEvent{ToolCallID: "c1", ToolName: "t", Args: args},
		host.ToolExecutionEndEvent{ToolCallID: "c1", ToolName: "t", Result: host.ToolResult{Content: host.Text(s), Details: map[string]string{"k": s}}},
		host.AgentEndEvent{Messages: []host.Message{msg}},
	}
}

// checkUnescaped: MarshalEvent leaves <, > and & as they are, and writes
// encoding/json's value in the bytes JSON.stringify writes (JSONStringify).
func checkUnescaped(t *testing.T, s string) {
	for _, e := range eventsWith(s) {
		got, err := host.MarshalEvent(e)
		if err != nil {
			t.Fatalf("%s: %v", e.EventType(), err)
		}
		if !json.Valid(got) {
			t.Fatalf("%s: invalid JSON %s", e.EventType(), got)
		}
		if !strings.Contains(s, `\`) {
			for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
				if bytes.Contains(got, []byte(esc)) {
					t.Fatalf("%s: %s escaped in %s", e.EventType(), esc, got)
				}
			}
		}
		body, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if ts, ok := e.(host.ToolExecutionStartEvent); ok {
			ts.Args = host.ArgumentsJSON(ts.Args)
			body, _ = json.Marshal(ts)
		}
		escaped := `{"type":"` + e.EventType() + `",` + string(body[1:])
		want, err := host.JSONStringify([]byte(escaped))
		if err != nil {
			t.Fatalf("%s: %v", e.EventType(), err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: not JSON.stringify's bytes of encoding/json's:\n got %s\nwant %s", e.EventType(), got, want)
		}
	}
}

func TestMarshalEventNoHTMLEscape(t *testing.T) {
	for _, s := range []string{"a < b && c > d", "<script>alert(1)</script>", "plain", "", `back\slash <`, "\u2028 line sep <"} {
		checkUnescaped(t, s)
	}
}

func FuzzMarshalEventNoHTMLEscape(f *testing.F) {
	for _, s := range []string{"<&>", `{"a":"<"}`, "\\u003c", "\xff<"} {
		f.Add(s)
	}
	f.Fuzz(checkUnescaped)
}
