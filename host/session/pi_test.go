package session_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/session"
)

// piNode is the npm directory holding pi-coding-agent 0.73.1.
const piNode = "../rpc/testdata/node"

func needPi(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: pi's SessionManager cannot be run (CI has Node 20)")
	}
	dir, _ := filepath.Abs(piNode)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@mariozechner", "pi-coding-agent")); err != nil {
		t.Skip("pi-coding-agent is not installed: run `make npm-deps` (npm ci in host/rpc/testdata/node)")
	}
	return dir
}

// canonicalMessages decodes JSON messages and encodes them again, so that
// both sides are compared in one form.
func canonicalMessages(t *testing.T, raw []json.RawMessage) string {
	t.Helper()
	var out []string
	for _, r := range raw {
		m, err := host.DecodeMessage(r)
		if err != nil {
			t.Fatalf("%v: %s", err, r)
		}
		b, _ := json.Marshal(m)
		out = append(out, string(b))
	}
	return strings.Join(out, "\n")
}

// A session written by wasmagent (tool calls, thinking, an image, an
// error result, a name, a thinking level) loads in pi-coding-agent's
// SessionManager with the same messages.
func TestPiSessionManagerLoadsOurs(t *testing.T) {
	node := needPi(t)
	// Node's start and pi's imports are most of it (18 s at load 18),
	// on files of its own: it runs beside the others.
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	o := opts(t, dir, scripted.Of(
		scripted.Turn{Content: host.Contents{host.ThinkingContent{Thinking: "Let me see\u2028."}, host.TextContent{Text: "Calling."},
			host.ToolCall{ID: "c1", Name: "echo", Arguments: json.RawMessage(`{"x":"ü"}`)},
			host.ToolCall{ID: "c2", Name: "missing", Arguments: json.RawMessage(`{}`)}}},
		textTurn("done")))
	o.Agent.Tools = []host.Tool{hosttest.Echo("echo")}
	s := session.New(o)
	if err := s.SetThinkingLevel(ctx, "high"); err != nil {
		t.Fatal(err)
	}
	img := host.ImageContent{Data: "iVBORw0KGgo=", MimeType: "image/png"}
	if err := s.Prompt(ctx, &host.UserMessage{Content: host.Contents{host.TextContent{Text: "look"}, img}, Timestamp: 5}, session.Reject); err != nil {
		t.Fatal(err)
	}
	s.Wait(ctx)
	s.SetName(ctx, "ours")
	path := s.State().SessionFile
	want := s.Messages()
	s.Close()

	out, err := exec.Command("node", filepath.Join(node, "session_load.mjs"), path).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var got struct {
		ID, Name, ThinkingLevel string
		Messages                []json.RawMessage
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var wantRaw []json.RawMessage
	for _, m := range want {
		b, _ := json.Marshal(m)
		wantRaw = append(wantRaw, b)
	}
	if g, w := canonicalMessages(t, got.Messages), canonicalMessages(t, wantRaw); g != w {
		t.Fatalf("pi sees\n%s\nwe wrote\n%s", g, w)
	}
	if got.Name != "ours" || got.ThinkingLevel != "high" || !strings.Contains(path, got.ID) {
		t.Fatalf("pi sees id %q name %q thinking %q", got.ID, got.Name, got.ThinkingLevel)
	}
}

// A session written by pi's SessionManager (testdata/pi-written.jsonl,
// made by `make pi-session-fixture`) loads in wasmagent on its current
// branch and continues; the continuation is again a valid pi session.
func TestPiWrittenSessionContinues(t *testing.T) {
	data, err := os.ReadFile("testdata/pi-written.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "pi.jsonl")
	os.WriteFile(path, data, 0o600)
	ctx := context.Background()
	s, err := session.Open(ctx, opts(t, dir, scripted.Of(textTurn("continued"))), path)
	if err != nil {
		t.Fatal(err)
	}
	st := s.State()
	if roles(s.Messages()) != "user,user,assistant" || st.SessionName != "written by pi" || st.ThinkingLevel != "low" {
		t.Fatalf("roles %s, state %+v", roles(s.Messages()), st)
	}
	prompt(t, s, "and now?")
	want := s.Messages()
	s.Close()
	if roles(want) != "user,user,assistant,user,assistant" {
		t.Fatal(roles(want))
	}
	if _, err := exec.LookPath("node"); err == nil {
		if _, err := os.Stat(filepath.Join(piNode, "node_modules")); err == nil {
			out, err := exec.Command("node", filepath.Join(piNode, "session_load.mjs"), path).CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var got struct{ Messages []json.RawMessage }
			json.Unmarshal(out, &got)
			if len(got.Messages) != len(want) {
				t.Fatalf("pi sees %d messages after our continuation, we have %d", len(got.Messages), len(want))
			}
		}
	}
}
