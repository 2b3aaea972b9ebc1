package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// CALL_JSON is read strictly; what it accepts is a call the host could
// send: a named tool, an id, arguments.
func FuzzHookCallJSON(f *testing.F) {
	for _, s := range []string{
		`{"toolCall":{"id":"c1","name":"write","arguments":{"path":"a"}},"args":{"path":"a"}}`,
		`{"toolCall":{"name":"read"},"result":{"content":[{"type":"text","text":"x"}]},"isError":true}`,
		`{"toolCall":{"name":"x"}} {}`, `[]`, `{"toolCall":null}`,
	} {
		f.Add("before", s)
		f.Add("after", s)
	}
	f.Fuzz(func(t *testing.T, kind, raw string) {
		if kind != "before" {
			kind = "after"
		}
		c := &hookCall{kind: kind}
		if err := c.decode([]byte(raw)); err != nil {
			if !strings.HasPrefix(err.Error(), "CALL_JSON: ") {
				t.Fatalf("%q: %v", raw, err)
			}
			return
		}
		if c.in.ToolCall.Name == "" || c.in.ToolCall.ID == "" {
			t.Fatalf("%q: accepted %+v", raw, c.in)
		}
		if len(c.in.Args) > 0 && !json.Valid(c.in.Args) {
			t.Fatalf("%q: args %q", raw, c.in.Args)
		}
	})
}
