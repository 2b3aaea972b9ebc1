package wasmtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

func TestMain(m *testing.M) {
	// The tests' shared compilation cache, named for wazero's version.
	cacheDir = wasmbuild.TestCacheDir()
	os.Exit(m.Run())
}

// Build builds a plugin from its directory as the template's README
// does, and the real host runs it: arguments validated, the result and
// the validation error as the model would read them.
func TestBuildAndExecute(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm := Build(t, filepath.Join(root, "examples", "plugin-template"))
	if filepath.Base(wasm) != "plugin-template.wasm" {
		t.Fatalf("Build wrote %s", wasm)
	}
	p := Load(t, wasm, runtime.Grants{})
	if d := p.Description(); d.Name != "wordcount" {
		t.Fatalf("description: %+v", d)
	}
	r, err := p.Execute("wordcount", map[string]any{"text": "hello wasm world"})
	if err != nil || r.Content[0].Text != "1 line, 3 words, 16 characters" {
		t.Fatalf("got %+v, %v", r, err)
	}
	if _, err := p.Execute("wordcount", map[string]any{"text": 3, "x": 1}); err == nil || !strings.Contains(err.Error(), "Validation failed") {
		t.Fatalf("bad arguments: err = %v", err)
	}
	if _, err := p.Execute("nope", nil); err == nil || !strings.Contains(err.Error(), `"wordcount"`) {
		t.Fatalf("a tool it has not: err = %v", err)
	}
}

// What a native test cannot see: a directory grant at a guest path, the
// partial results the host passes on, the host's refusal of a plugin
// whose need is not granted, and the grant's wall.
func TestDirectoryGrant(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	wasm := wasmbuild.ForTest(t, "plugins/fs")
	if _, err := TryLoad(t, wasm, runtime.Grants{}); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("fs without a directory: err = %v", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("needle\n"), 0o644)
	p := Load(t, wasm, runtime.Grants{Dirs: []runtime.Dir{{Host: dir, Guest: "/work"}}})
	r, err := p.Execute("grep", map[string]any{"pattern": "needle", "path": "/work"})
	if err != nil || !strings.Contains(r.Content[0].Text, "a.txt:1: needle") {
		t.Fatalf("grep: %+v, %v", r, err)
	}
	if u := p.Updates(); len(u) == 0 || !strings.Contains(string(u[0]), "scanning") {
		t.Fatalf("updates: %s", u)
	}
	if _, err := p.Execute("read", map[string]any{"path": "/etc/passwd"}); err == nil {
		t.Fatal("read outside the grant succeeded")
	}
}

// Hooks in the host: a policy's block with its configuration granted, a
// redaction, and a hook that answers nothing.
func TestHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugins")
	}
	policy := Load(t, wasmbuild.ForTest(t, "plugins/policy"), runtime.Grants{Config: map[string]string{
		"rules": `[{"name":"no-env","action":"deny","path":["**/.env"],"reason":"no secrets"}]`,
	}})
	b, err := policy.BeforeToolCall("write", map[string]any{"path": "/work/.env"})
	if err != nil || !b.Block || !strings.Contains(b.Reason, "no secrets") {
		t.Fatalf("policy on .env: %+v, %v", b, err)
	}
	if b, err := policy.BeforeToolCall("write", map[string]any{"path": "/work/a.md"}); err != nil || b.Block {
		t.Fatalf("policy on a.md: %+v, %v", b, err)
	}
	redact := Load(t, wasmbuild.ForTest(t, "plugins/redact"), runtime.Grants{})
	a, err := redact.AfterToolCall("read", nil, sdk.Text("key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"))
	if err != nil || len(a.Content) != 1 || strings.Contains(a.Content[0].Text, "abcdefghij") || !strings.Contains(a.Content[0].Text, "[REDACTED:") {
		t.Fatalf("redact: %+v, %v", a, err)
	}
	if a, err := redact.AfterToolCall("read", nil, sdk.Text("nothing here")); err != nil || a.Content != nil || a.Details != nil {
		t.Fatalf("redact, nothing to redact: %+v, %v", a, err)
	}
	if _, err := redact.BeforeToolCall("read", nil); err == nil || !strings.Contains(err.Error(), "not a beforeToolCall hook") {
		t.Fatalf("redact as a before hook: err = %v", err)
	}
}
