package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/internal/configtest"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// A scripted coding session through the real host: read, grep, edit, read
// again, with the policy hook guarding writes and the redact hook cleaning
// every result.
func TestCodingSession(t *testing.T) {
	// Child processes: it waits on them, beside the others (RATIONALE.md,
	// "Why is make test shaped this way?").
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the plugins")
	}
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	token := "ghp_" + strings.Repeat("Kq7z", 9)
	os.WriteFile(filepath.Join(ws, "app.conf"), []byte("port = 8080\nlog = debug\ngithub_token = "+token+"\n"), 0o644)
	call := func(id, name, args string) string {
		return fmt.Sprintf(`{"type":"toolCall","id":%q,"name":%q,"arguments":%s}`, id, name, args)
	}
	script := `{"turns":[
		{"content":[` + call("c1", "read", `{"path":"app.conf"}`) + `,` + call("c2", "grep", `{"pattern":"port"}`) + `]},
		{"content":[` + call("c3", "edit", `{"path":"app.conf","oldText":"port = 8080","newText":"port = 9090"}`) + `,` + call("c4", "write", `{"path":".env","content":"X=1"}`) + `]},
		{"content":[` + call("c5", "read", `{"path":"app.conf"}`) + `]},
		{"content":"Port changed to 9090."}]}`
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(script), 0o644)
	cfg := fmt.Sprintf(`
[model]
provider = "scripted"
script = "script.json"
[runtime]
cache_dir = %q
[[tool]]
plugin = %q
[[tool.grants.dirs]]
host = "ws"
guest = "/work"
write = true
[[hook]]
plugin = %q
tools = ["write", "edit"]
[hook.config]
rules = [{ name = "no-env", action = "deny", path = ["**/.env"], reason = "no env files" }]
[[hook]]
plugin = %q
[audit]
path = "audit.jsonl"
results = true
max_field_bytes = 40
`, wasmbuild.TestCacheDir(), wasmbuild.ForTest(t, "plugins/fs"), wasmbuild.ForTest(t, "plugins/policy"), wasmbuild.ForTest(t, "plugins/redact"))
	path := filepath.Join(dir, "agent.toml")
	os.WriteFile(path, []byte(cfg), 0o644)

	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	configtest.NoPools(f)
	s, err := f.Wire(context.Background(), config.WireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := host.NewAgent(s.Options)
	a.Subscribe(s.Audit())
	var events bytes.Buffer
	a.Subscribe(func(_ context.Context, e host.Event) error {
		b, err := host.MarshalEvent(e)
		events.Write(b)
		return err
	})
	if err := a.PromptText(context.Background(), "Change the port to 9090."); err != nil {
		t.Fatal(err)
	}
	var results []string
	for _, m := range a.State().Messages {
		if r, ok := m.(*host.ToolResultMessage); ok {
			text := r.Content.TextOf()
			if r.IsError {
				text = "error: " + text
			}
			results = append(results, text)
		}
	}
	want := []string{
		"     1\tport = 8080\n     2\tlog = debug\n     3\tgithub_token = [REDACTED:github-token]\n",
		"app.conf:1: port = 8080\n",
		"Edited app.conf at line 1",
		"error: Blocked by policy rule no-env: no env files",
		"     1\tport = 9090\n     2\tlog = debug\n     3\tgithub_token = [REDACTED:github-token]\n",
	}
	if len(results) != len(want) {
		t.Fatalf("results %q", results)
	}
	for i := range want {
		if results[i] != want[i] {
			t.Errorf("result %d:\n got %q\nwant %q", i, results[i], want[i])
		}
	}
	// The secret reached neither the model nor any event.
	if strings.Contains(events.String(), token) {
		t.Error("the token appears in the events")
	}
	for _, req := range a.State().Messages {
		b, _ := json.Marshal(req)
		if strings.Contains(string(b), token) {
			t.Errorf("the token is in the transcript: %s", b)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "app.conf")); !strings.HasPrefix(string(b), "port = 9090\n") {
		t.Errorf("file: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, ".env")); err == nil {
		t.Error(".env was written")
	}
	// The audit log: one record per call, with hook decisions.
	s.Close()
	log, err := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d audit records:\n%s", len(lines), log)
	}
	// Records come in completion order; read and grep ran in parallel, so
	// compare them in call order.
	outcomes := make([]string, len(lines))
	for _, l := range lines {
		var rec struct {
			ToolCallID                    string
			Tool, Outcome, SHA256, Result string
			Args                          json.RawMessage
			Hooks                         []struct{ Hook, Plugin, Decision, Reason string }
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		d := ""
		for _, h := range rec.Hooks {
			name, _, _ := strings.Cut(h.Plugin, "-") // the tests name plugin files name-<hash>.wasm
			d += "," + name + ":" + h.Decision
		}
		var i int
		if _, err := fmt.Sscanf(rec.ToolCallID, "c%d", &i); err != nil || i < 1 || i > len(lines) {
			t.Fatalf("record id %q", rec.ToolCallID)
		}
		outcomes[i-1] = rec.Tool + ":" + rec.Outcome + d
		if len(rec.SHA256) != 64 || rec.Args != nil || len(rec.Result) > 45 || strings.Contains(rec.Result, token) {
			t.Errorf("record %s", l)
		}
	}
	// edit: its diff showed the token's line, so redact modified it; the
	// blocked write never ran, so no after hook saw it.
	wantAudit := "read:ok,redact:modify grep:ok,redact:keep edit:ok,policy:allow,redact:modify write:blocked,policy:block read:ok,redact:modify"
	if got := strings.Join(outcomes, " "); got != wantAudit {
		t.Errorf("audit:\n got %s\nwant %s", got, wantAudit)
	}
}
