package scripted_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// A script carries what pi-ai's assistant content allows: thinking with a
// signature, redacted thinking, a text signature, a tool call's thought
// signature and its id. The final message (done's, and the stream's
// result) holds the blocks whole; the partials hold what the faux
// provider builds while streaming — text, thinking, a call's id, name and
// arguments — and no signature, as pi's do.
func TestSignaturesReachTheFinalMessageOnly(t *testing.T) {
	s, err := scripted.Parse([]byte(`{"chunkTokens":1,"turns":[{"content":[
		{"type":"thinking","thinking":"plan the read","thinkingSignature":"sig-think"},
		{"type":"thinking","thinking":"","thinkingSignature":"opaque-blob","redacted":true},
		{"type":"text","text":"Reading it.","textSignature":"sig-text"},
		{"type":"toolCall","id":"toolu_01","name":"read","arguments":{"path":"a.txt"},"thoughtSignature":"sig-call"}
	]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := host.Contents{
		host.ThinkingContent{Thinking: "plan the read", ThinkingSignature: "sig-think"},
		host.ThinkingContent{Thinking: "", ThinkingSignature: "opaque-blob", Redacted: true},
		host.TextContent{Text: "Reading it.", TextSignature: "sig-text"},
		host.ToolCall{ID: "toolu_01", Name: "read", Arguments: json.RawMessage(`{"path":"a.txt"}`), ThoughtSignature: "sig-call"},
	}
	if !reflect.DeepEqual(s.Turns[0].Content, want) {
		t.Fatalf("parsed %#v\nwant %#v", s.Turns[0].Content, want)
	}
	events, final := stream(t, context.Background(), scripted.New(s))
	if !reflect.DeepEqual(final.Content, want) {
		t.Fatalf("final %#v", final.Content)
	}
	last := events[len(events)-1]
	if last.Type != host.StreamDone || !reflect.DeepEqual(last.Message.Content, want) {
		t.Fatalf("last event %s %#v", last.Type, last.Message)
	}
	var end *host.ToolCall
	for _, e := range events {
		if e.Type == host.StreamToolCallEnd {
			end = e.ToolCall
		}
		if e.Partial == nil {
			continue
		}
		for i, c := range e.Partial.Content {
			switch c := c.(type) {
			case host.ThinkingContent:
				if c.ThinkingSignature != "" || c.Redacted {
					t.Fatalf("%s: partial block %d carries a signature: %#v", e.Type, i, c)
				}
			case host.TextContent:
				if c.TextSignature != "" {
					t.Fatalf("%s: partial block %d carries a signature: %#v", e.Type, i, c)
				}
			case host.ToolCall:
				if c.ThoughtSignature != "" || c.ID != "toolu_01" {
					t.Fatalf("%s: partial block %d: %#v", e.Type, i, c)
				}
			}
		}
	}
	if end == nil || !reflect.DeepEqual(*end, want[3]) {
		t.Fatalf("toolcall_end's call %#v", end)
	}
}

// A field of another block type is an error naming it, not ignored.
func TestBlockFieldsOfAnotherType(t *testing.T) {
	for _, c := range []struct{ block, field string }{
		{`{"type":"text","text":"a","thinkingSignature":"s"}`, "thinkingSignature"},
		{`{"type":"text","text":"a","id":"x"}`, "id"},
		{`{"type":"thinking","thinking":"a","textSignature":"s"}`, "textSignature"},
		{`{"type":"thinking","thinking":"a","text":"b"}`, "text"},
		{`{"type":"toolCall","id":"a","name":"b","redacted":true}`, "redacted"},
		{`{"type":"toolCall","id":"a","name":"b","thinkingSignature":"s"}`, "thinkingSignature"},
	} {
		_, err := scripted.Parse([]byte(`{"turns":[{"content":[` + c.block + `]}]}`))
		if err == nil || !strings.Contains(err.Error(), `"`+c.field+`"`) {
			t.Errorf("%s: %v, want an error naming %q", c.block, err, c.field)
		}
	}
}
