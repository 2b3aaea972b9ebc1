package host_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// A model's arguments that fail validation are shown back in the error
// result; arguments nested a hundred deep on every line, which indent to
// some forty times their size, are shown as a string instead, so that
// the result stays within four times the arguments and a mebibyte. The
// session goes on.
func TestHostileArgumentsIndentBounded(t *testing.T) {
	chain := strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100)
	args := "[" + strings.Repeat(chain+",", (256<<10)/len(chain)) + "0]" // an array, where the schema wants an object
	tool := hosttest.Tool("read", fuzzSchema, func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
		t.Error("the tool ran")
		return host.ToolResult{}, nil
	})
	m := scripted.Of(calls(host.ToolCall{ID: "c1", Name: "read", Arguments: json.RawMessage(args)}), say("still here"))
	msgs, err := host.RunLoop(context.Background(), []host.Message{user("q")}, &host.Context{Tools: []host.Tool{tool}}, &host.Config{Model: m}, func(context.Context, host.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, msg := range msgs {
		if r, ok := msg.(*host.ToolResultMessage); ok && r.ToolCallID == "c1" && r.IsError {
			text = r.Content.TextOf()
		}
	}
	if !strings.Contains(text, "Validation failed for tool \"read\"") || !strings.Contains(text, `"[{\"a\":{\"a\":`) {
		t.Fatalf("result %.300q", text)
	}
	if limit := 4*len(args) + 1<<20 + 1<<10; len(text) > limit {
		t.Fatalf("%d bytes of arguments answered with %d bytes (at most %d)", len(args), len(text), limit)
	}
	if last := msgs[len(msgs)-1].(*host.AssistantMessage); last.Content.TextOf() != "still here" {
		t.Fatal("the session did not go on")
	}
}
