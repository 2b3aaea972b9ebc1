package host_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
)

const fuzzSchema = `{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}},"required":["path"],"additionalProperties":false}`

// FuzzPrepareArguments sends arbitrary bytes as a tool call's name and
// arguments through the loop: never a panic, and the tool only ever sees
// arguments that are valid against its schema; every other call ends as an
// error result carrying its id.
func FuzzPrepareArguments(f *testing.F) {
	for _, seed := range []string{`{"path":"a"}`, `{"path":"a","n":"3"}`, `{"path":1}`, `{`, `[]`, `null`, `{"path":"\ud800"}`,
		`{"path":"a","path":"b"}`, `{"path":"a"} x`, `{"n":1e400,"path":""}`, "\xff", `NaN`, `{"path":"a"/*c*/}`} {
		f.Add("read", seed)
	}
	f.Add("_initialize", `{}`)
	schema, err := host.CompileSchema(json.RawMessage(fuzzSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name, args string) {
		var mu sync.Mutex
		var seen []json.RawMessage
		tool := hosttest.Tool("read", fuzzSchema, func(_ context.Context, _ string, a json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
			mu.Lock()
			seen = append(seen, a)
			mu.Unlock()
			return host.ToolResult{Content: host.Text("ok")}, nil
		})
		m := scripted.Of(calls(host.ToolCall{ID: "id1", Name: name, Arguments: json.RawMessage(args)}), say("ok"))
		rec := hosttest.NewRecorder()
		if _, err := host.RunLoop(context.Background(), []host.Message{user("q")}, &host.Context{Tools: []host.Tool{tool}}, &host.Config{Model: m}, rec.Sink); err != nil {
			t.Fatal(err)
		}
		for _, a := range seen {
			if _, err := schema.ValidateArguments("read", a); err != nil {
				t.Fatalf("execute saw invalid arguments %s: %v", a, err)
			}
		}
		ends := 0
		for _, e := range rec.Events() {
			if end, ok := e.(host.ToolExecutionEndEvent); ok {
				ends++
				if end.ToolCallID != "id1" || (len(seen) == 0 && !end.IsError) {
					t.Fatalf("end %+v with %d executions", end, len(seen))
				}
			}
			if _, err := host.MarshalEvent(e); err != nil {
				t.Fatalf("event does not encode: %v", err)
			}
		}
		if ends != 1 {
			t.Fatalf("%d tool_execution_end events", ends)
		}
	})
}

// FuzzDecodeMessage: any bytes decode to a message or an error, and a
// decoded message encodes to the same JSON value it was given (pi passes
// a message on untouched: docs/loop.md 1.9) and decodes to the same role.
func FuzzDecodeMessage(f *testing.F) {
	for _, seed := range []string{
		`{"role":"user","content":"hi","timestamp":1}`,
		`{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"AA==","mimeType":"image/png"}]}`,
		`{"role":"assistant","content":[{"type":"toolCall","id":"1","name":"x","arguments":{"a":1}}],"stopReason":"toolUse"}`,
		`{"role":"toolResult","toolCallId":"1","toolName":"x","content":[],"isError":true}`,
		`{"role":"note","text":"custom"}`, `{"role":"assistant","content":[{"type":"bogus"}]}`, `[]`, `{}`,
		`{"role":"user","content":null,"timestamp":"2025","meta":{"a":[1,2.50]},"meta":1}`, `{"role":"toolResult","details":null,"isError":"yes"}`,
		`{"role":"assistant","usage":{"input":1.5},"errorMessage":"","api":7}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		m, err := host.DecodeMessage([]byte(data))
		if err != nil {
			return
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("decoded message does not encode: %v", err)
		}
		if g, w := canonicalValue(t, b), canonicalValue(t, []byte(data)); g != w {
			t.Fatalf("given %s\nencodes as %s", w, g)
		}
		m2, err := host.DecodeMessage(b)
		if err != nil || m2.MessageRole() != m.MessageRole() {
			t.Fatalf("round trip: %v, role %q → %v", err, m.MessageRole(), m2)
		}
	})
}
