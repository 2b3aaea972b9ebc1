package host_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// canonicalValue is data as JSON.parse reads it, written with sorted keys:
// two texts of one value give the same string.
func canonicalValue(t testing.TB, data []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Every message given as JSON (hosttest.Given: string content, members
// no type declares, members absent, timestamps of other types, an empty
// errorMessage, odd usage, content blocks of unknown types or that fit no
// type, a content that is no array) encodes back to the same value, as
// pi passes it on. On the old main a string content came back as an
// array of one text block, unknown members were dropped and absent ones
// written, and a block of an unknown type, or a content that is a
// number, made the message an error.
func TestGivenMessagesKeepTheirJSON(t *testing.T) {
	for seed := range uint64(2000) {
		given := hosttest.Given{R: rand.New(rand.NewPCG(seed, 1)), Odd: seed%2 == 0}.Message("", "c1")
		m, err := host.DecodeMessage([]byte(given))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, given)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if g, w := canonicalValue(t, b), canonicalValue(t, []byte(given)); g != w {
			t.Fatalf("seed %d: given\n%s\nencodes as\n%s", seed, w, g)
		}
	}
}

// A field changed after decoding is written as it is now; every other
// member stays as given (generated: each message, each field changed).
func TestChangedFieldsOfGivenMessages(t *testing.T) {
	for seed := range uint64(500) {
		given := hosttest.Given{R: rand.New(rand.NewPCG(seed, 2)), Odd: seed%2 == 0}.Message("", "c1")
		var before map[string]json.RawMessage
		json.Unmarshal([]byte(given), &before)
		m, err := host.DecodeMessage([]byte(given))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, given)
		}
		var changed, want string
		switch m := m.(type) {
		case *host.UserMessage:
			m.Timestamp, changed, want = 42, "timestamp", "42"
		case *host.AssistantMessage:
			m.Content, changed, want = host.Text("new"), "content", `[{"type":"text","text":"new"}]`
		case *host.ToolResultMessage:
			m.IsError, changed = !m.IsError, "isError"
			want = map[bool]string{true: "true", false: "false"}[m.IsError]
		default:
			continue // custom messages are kept as given, whole
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var after map[string]json.RawMessage
		if err := json.Unmarshal(b, &after); err != nil {
			t.Fatalf("seed %d: %v: %s", seed, err, b)
		}
		if string(after[changed]) != want {
			t.Fatalf("seed %d: %s = %s after the change, want %s\ngiven %s\nnow   %s", seed, changed, after[changed], want, given, b)
		}
		for k, v := range before {
			if k != changed && canonicalValue(t, after[k]) != canonicalValue(t, v) {
				t.Fatalf("seed %d: %s = %s, given %s\ngiven %s\nnow   %s", seed, k, after[k], v, given, b)
			}
		}
		for k := range after {
			if _, ok := before[k]; !ok && k != changed {
				t.Fatalf("seed %d: %s added\ngiven %s\nnow   %s", seed, k, given, b)
			}
		}
	}
}

// A message made in Go, or decoded from the JSON Go writes, has no given
// JSON to keep: it encodes as its fields say.
func TestMessagesOfGoEncodeAsTheirFields(t *testing.T) {
	m := &host.UserMessage{Content: host.Text("hi"), Timestamp: 3}
	b, _ := json.Marshal(m)
	if string(b) != `{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":3}` {
		t.Fatal(string(b))
	}
	back, err := host.DecodeMessage(b)
	if err != nil {
		t.Fatal(err)
	}
	back.(*host.UserMessage).Content = host.Text("bye")
	if b, _ := json.Marshal(back); !strings.Contains(string(b), `"text":"bye"`) {
		t.Fatal(string(b))
	}
}

// A tool's extra members follow its fields in tool_execution_end's
// result; ones named as a field are left out; and a value that is not an
// object does not encode (the loop turns it into an error result first).
func TestToolResultExtra(t *testing.T) {
	r := host.ToolResult{Content: host.Text("x"), Terminate: host.Bool(false), Extra: json.RawMessage(`{"meta":{"a":1},"content":"no","isError":true,"n":null}`)}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"x"}],"terminate":false,"meta":{"a":1},"isError":true,"n":null}`; string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	r.Extra = json.RawMessage(`[1]`)
	if _, err := json.Marshal(r); err == nil {
		t.Fatal("an Extra that is no object encoded")
	}
}

// A member whose name is a message field's but for its case is another
// member to JavaScript, which reads names exactly: it stays as given and
// the field is the exact member's (encoding/json took "Content" for
// "content", "Role" for "role").
func TestMessageNamesExact(t *testing.T) {
	m, err := host.DecodeMessage([]byte(`{"role":"user","content":"a","Content":"b","timestamp":1}`))
	u, ok := m.(*host.UserMessage)
	if err != nil || !ok || len(u.Content) != 1 || u.Content[0].(host.TextContent).Text != "a" {
		t.Fatalf("DecodeMessage = %#v, %v; want the user message of content \"a\"", m, err)
	}
	if b, _ := host.MarshalJS(m); string(b) != `{"role":"user","content":"a","Content":"b","timestamp":1}` {
		t.Errorf("written back as %s", b)
	}
	if m, err := host.DecodeMessage([]byte(`{"Role":"user","content":"x"}`)); err == nil && m.MessageRole() != "" {
		t.Errorf(`{"Role":"user"} decoded as a message of role %q: pi reads no role`, m.MessageRole())
	}
	r, err := host.DecodeMessage([]byte(`{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"isError":false,"IsError":true,"timestamp":1}`))
	if tr, ok := r.(*host.ToolResultMessage); err != nil || !ok || tr.IsError {
		t.Errorf("IsError taken for isError: %#v, %v", r, err)
	}
}
