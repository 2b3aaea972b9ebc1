package mcp_test

import (
	"context"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// The question a client shows is bounded and plain whatever a hook and a
// model put in it: the hook's text at most 1000 runes, the arguments at
// most 2000 with their head and tail, no control character (a hook's
// newline cannot fake the "Tool:" line) and no bidi control.
func TestElicitationTextIsSafe(t *testing.T) {
	hostile := []struct{ name, ask, arg string }{
		{"spoofed lines", "ok?\n\nTool: harmless\nArguments: {}\n\x1b[2K", "x"},
		{"bidi", "run \u202eexe.txt\u202c \u2066a\u2069?", "\u202egnp.exe"},
		{"long ascii", strings.Repeat("q", 5000), strings.Repeat("a", 3000) + strings.Repeat("z", 3000)},
		{"long multibyte", strings.Repeat("問", 5000), strings.Repeat("日", 3000) + "\u0085\u009b" + strings.Repeat("本", 3000)},
		{"c0 and c1", "a\x00b\x07c\x7fd\u0085e\u009bf\rg\th", "\x01\x1f"},
	}
	for _, c := range hostile {
		t.Run(c.name, func(t *testing.T) {
			asks := host.WithBeforeOptions(host.BeforeToolCallFunc(func(ctx context.Context, _ *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
				return &host.BeforeToolCallResult{Ask: c.ask}, nil
			}), host.HookOptions{Name: "asker"})
			runner := &host.ToolRunner{Tools: []host.Tool{hosttest.Echo("echo")}, BeforeToolCall: []host.BeforeToolCallHook{asks}}
			var asked string
			cs := connect(t, newServer(t, runner), &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				asked = r.Params.Message
				return &sdk.ElicitResult{Action: "decline"}, nil
			}})
			call(t, cs, "echo", map[string]any{"s": c.arg})
			if !utf8.ValidString(asked) {
				t.Fatalf("not UTF-8: %q", asked)
			}
			lines := strings.Split(asked, "\n")
			if len(lines) != 4 || !strings.HasPrefix(lines[0], "asker asks: ") || lines[1] != "" || lines[2] != "Tool: echo" || !strings.HasPrefix(lines[3], "Arguments: ") {
				t.Fatalf("the question's lines are not the host's own: %q", lines)
			}
			for _, r := range strings.Join(lines, "") {
				if unicode.IsControl(r) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
					t.Fatalf("%U shown in %q", r, asked)
				}
			}
			text := strings.TrimPrefix(lines[0], "asker asks: ")
			args := strings.TrimPrefix(lines[3], "Arguments: ")
			if n := utf8.RuneCountInString(text); n > 1000 {
				t.Errorf("question text: %d runes", n)
			}
			if n := utf8.RuneCountInString(args); n > 2000 {
				t.Errorf("arguments: %d runes", n)
			}
			if utf8.RuneCountInString(c.arg) > 2000 {
				first, _ := utf8.DecodeRuneInString(c.arg)
				last, _ := utf8.DecodeLastRuneInString(c.arg)
				if !strings.HasPrefix(args, `{"s":"`+strings.Repeat(string(first), 100)) || !strings.HasSuffix(args, strings.Repeat(string(last), 100)+`"}`) || !strings.Contains(args, " bytes … ") {
					t.Errorf("arguments clipped without head, tail or size: %.80q … %q", args, args[max(0, len(args)-80):])
				}
			}
		})
	}
}
