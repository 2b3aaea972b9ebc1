package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// Whatever the model sends as a tool call's arguments or name, the call
// ends as an error result carrying its id, the session goes on, and the
// tool never runs with arguments that are not valid.
func TestHostileModelOutput(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	cases := []struct{ name, tool, args, want string }{
		{"truncated", "read", `{"path":"a`, "not valid JSON"},
		{"trailing garbage", "read", `{"path":"a"} rm -rf`, ""},
		{"comments", "read", `{"path":"a" /* x */}`, ""},
		{"NaN", "read", `{"path":"a","n":NaN}`, ""},
		{"not an object", "read", `["a"]`, ""},
		{"null", "read", `null`, ""},
		{"invalid UTF-8", "read", "{\"path\":\"\xff\"}", ""},
		{"lone surrogate", "read", `{"path":"\ud800"}`, ""},
		{"deep nesting", "read", deep, ""},
		{"duplicate keys", "read", `{"path":"a","path":"/etc/passwd"}`, ""},
		{"number overflow", "read", `{"path":"a","n":1e400}`, ""},
		{"unknown tool", "rm", `{}`, "Tool rm not found"},
		{"near-miss name", "Read", `{"path":"a"}`, "Tool Read not found"},
		{"internal export as a name", "_initialize", `{}`, "Tool _initialize not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ran := false
			tool := hosttest.Tool("read", fuzzSchema, func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
				ran = true
				return host.ToolResult{Content: host.Text("ran")}, nil
			})
			m := scripted.Of(calls(host.ToolCall{ID: "call_x", Name: c.tool, Arguments: json.RawMessage(c.args)}), say("still here"))
			msgs, err := host.RunLoop(context.Background(), []host.Message{user("q")}, &host.Context{Tools: []host.Tool{tool}}, &host.Config{Model: m}, func(context.Context, host.Event) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if ran {
				t.Fatal("the tool ran")
			}
			var result *host.ToolResultMessage
			for _, msg := range msgs {
				if r, ok := msg.(*host.ToolResultMessage); ok {
					result = r
				}
			}
			if result == nil || !result.IsError || result.ToolCallID != "call_x" || !strings.Contains(result.Content.TextOf(), c.want) {
				t.Fatalf("result %+v", result)
			}
			if last := msgs[len(msgs)-1].(*host.AssistantMessage); last.Content.TextOf() != "still here" {
				t.Fatal("the session did not go on")
			}
		})
	}
}

// 200 calls in one message: every one is answered, in order, and the run
// goes on. Calls past the cap (128 by default) are answered with an error
// result that says so, without running.
func Test200CallsInOneMessage(t *testing.T) {
	for _, c := range []struct {
		name     string
		max, ran int
	}{{"default cap", 0, host.DefaultMaxToolCalls}, {"cap 7", 7, 7}, {"cap 200", 200, 200}, {"no cap", -1, 200}} {
		t.Run(c.name, func(t *testing.T) {
			var cs []host.ToolCall
			for i := range 200 {
				cs = append(cs, host.ToolCall{ID: fmt.Sprintf("c%03d", i), Name: "echo", Arguments: json.RawMessage(fmt.Sprintf(`{"text":"%d"}`, i))})
			}
			m := scripted.Of(calls(cs...), say("done"))
			msgs, err := host.RunLoop(context.Background(), []host.Message{user("q")}, &host.Context{Tools: []host.Tool{hosttest.Echo("echo")}}, &host.Config{Model: m, MaxToolCalls: c.max}, func(context.Context, host.Event) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			checkAnswered(t, msgs, 200, c.ran, "at most")
		})
	}
}

// checkAnswered checks that the n calls c000… were each answered in order,
// the first ran of them by the tool and the others with an error containing
// want, and that the run went on to a last assistant message.
func checkAnswered(t *testing.T, msgs []host.Message, n, ran int, want string) {
	t.Helper()
	i := 0
	for _, msg := range msgs {
		r, ok := msg.(*host.ToolResultMessage)
		if !ok {
			continue
		}
		if r.ToolCallID != fmt.Sprintf("c%03d", i) || r.IsError != (i >= ran) {
			t.Fatalf("result %d: %+v", i, r)
		}
		if r.IsError && !strings.Contains(r.Content.TextOf(), want) {
			t.Fatalf("result %d: %q does not say %q", i, r.Content.TextOf(), want)
		}
		i++
	}
	if i != n {
		t.Fatalf("%d results, want %d", i, n)
	}
	if last, ok := msgs[len(msgs)-1].(*host.AssistantMessage); !ok || last.StopReason != host.StopReasonStop {
		t.Fatalf("the run did not go on: last message %+v", msgs[len(msgs)-1])
	}
}
