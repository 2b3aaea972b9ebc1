package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/internal/safetext"
)

// Whatever a hook asks and a model sends, the question chat shows has no
// control character but newline and tab (no escape sequence reaches the
// terminal) and is bounded, whatever the size of the input.
func FuzzQuestionShown(f *testing.F) {
	f.Add("Run it?", `{"path":"a.txt"}`, "write")
	f.Add("\x1b]0;pwned\x07", "{\"x\":\"\\u001b[2J\"}", "e\x1bcho")
	f.Add(strings.Repeat("why? ", 400), `{"x":"`+strings.Repeat("x", 3000)+`"}`, "w")
	f.Add("\u009b31m", "not json \r\n\x9b", "")
	f.Add("write to \u202egnp.exe\u202c?", "{\"path\":\"\u2066/etc\u2069/\u200fpasswd\"}", "w\u061crite")
	f.Fuzz(func(t *testing.T, text, args, tool string) {
		var status bytes.Buffer
		r := newPlainRenderer(&stdScreen{out: &bytes.Buffer{}, status: &status}, false)
		defer r.close()
		p := &host.PromptApprover{Out: questionWriter{r}}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		q := host.Question{Hook: "h", ToolCall: host.ToolCall{ID: "c", Name: tool}, Args: json.RawMessage(args), Text: text}
		if ok, _ := p.Approve(ctx, shown(q)); ok {
			t.Fatal("a question nobody answered was approved")
		}
		out := status.String()
		for _, c := range out {
			if (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c < 0xa0) || safetext.IsBidiControl(c) {
				t.Fatalf("control %U shown in %q", c, out)
			}
		}
		if n := utf8.RuneCountInString(out); n > maxQuestionText+maxQuestionArgs+3*utf8.RuneCountInString(tool)+200 {
			t.Fatalf("%d runes shown for a question", n)
		}
		if !strings.Contains(out, "allow?") || !strings.Contains(out, "(no answer: declined)") {
			t.Fatalf("no question or no decline in %q", out)
		}
	})
}
