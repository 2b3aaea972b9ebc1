package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/host"
)

// However the text is cut into writes — inside a rune, between CR and
// LF, inside an escape sequence — a terminal gets from the termWriter
// what printable makes of the whole, once the command's own sequence
// (ctl) has flushed what it held, and in the order written.
func FuzzTermWriter(f *testing.F) {
	f.Add("a\r\nb\x1b[31m日本\u202e\xe6\x97", uint8(3))
	f.Add("\r", uint8(1))
	f.Add("\xe6\x97\xa5\r\n\x9b", uint8(2))
	f.Fuzz(func(t *testing.T, s string, step uint8) {
		var out bytes.Buffer
		w := onTerminal(&out, true)
		n := int(step%7) + 1
		for i := 0; i < len(s); i += n {
			w.Write([]byte(s[i:min(i+n, len(s))]))
		}
		ctl(w).Write([]byte("<ctl>"))
		if want := printable(s) + "<ctl>"; out.String() != want {
			t.Fatalf("%q in writes of %d: %q, want %q", s, n, out.String(), want)
		}
		if onTerminal(w, true) != w || onTerminal(&out, false) != &out || ctl(&out) != &out || jsonOut(&out) != &out {
			t.Fatal("a writer wrapped twice, or a pipe wrapped")
		}
	})
}

// On a terminal a JSON stream keeps its values; the runes JSON leaves as
// they are and a terminal acts on (C1, bidi) are \u escapes.
func FuzzJSONSafe(f *testing.F) {
	f.Add("plain", "x\u009b31m\u202e\x7f\u2066y")
	f.Fuzz(func(t *testing.T, k, v string) {
		b, _ := json.Marshal(map[string]any{k: []string{v, k}})
		var out bytes.Buffer
		jsonOut(onTerminal(&out, true)).Write(append(b, '\n'))
		var got, want any
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("%s → %s: %v", b, out.Bytes(), err)
		}
		json.Unmarshal(b, &want)
		if gb, _ := json.Marshal(got); string(gb) != string(mustJSON(want)) {
			t.Fatalf("%s → %s: another value", b, out.Bytes())
		}
		for _, r := range out.String() {
			if r < 0x20 && r != '\n' || r >= 0x7f && r < 0xa0 || isBidi(r) {
				t.Fatalf("%s → %q keeps %U", b, out.String(), r)
			}
		}
	})
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func isBidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// In chat's line editor (raw mode) the model's text, a tool's name and
// result, an error and the live line show nothing a terminal acts on but
// the editor's own cursor moves and styles.
func TestConsoleShowsHostileTextPrintable(t *testing.T) {
	const evil = "x\x1b]52;c;ZXZpbA==\x07\x1bP+q\x1b\\\u009b9;9H\u202e\u2066\x1b[9;9Hy\rz"
	var out bytes.Buffer
	c := newConsoleScreen(strings.NewReader(""), &out, 80, 24, false)
	r := newPlainRenderer(c, false)
	r.event(nil, host.MessageUpdateEvent{AssistantMessageEvent: host.AssistantMessageEvent{Type: host.StreamTextDelta, Delta: evil}})
	r.event(nil, host.ToolExecutionStartEvent{ToolCallID: "1", ToolName: evil, Args: json.RawMessage(`{"a":"\u202e"}`)})
	r.event(nil, host.ToolExecutionEndEvent{ToolCallID: "1", ToolName: evil, Result: host.ToolResult{Content: host.Text(evil)}})
	r.note("note " + evil)
	c.busy = true
	c.live(evil)
	s := out.String()
	for _, bad := range []string{"\x1b]", "\x1bP", "\a", "\u009b", "\u202e", "\u2066", "\x1b[9;9H", "y\rz"} {
		if strings.Contains(s, bad) {
			t.Fatalf("%q reaches the terminal:\n%q", bad, s)
		}
	}
	if !utf8.ValidString(s) || strings.Count(s, "^[]52;c;ZXZpbA==^G") < 4 || !strings.Contains(c.prompt(), "^[]52") {
		t.Fatalf("the text is not shown printable:\n%q\nprompt %q", s, c.prompt())
	}
}
