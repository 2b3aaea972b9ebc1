// Package demo_test runs the offline demo (make demo) in a copy of its
// directory and checks what it shows.
package demo_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// copyDemo copies agent.toml, script.json and workspace/ to a temporary
// directory, pointing the configuration at plugins built for the test.
func copyDemo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir("workspace", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(p, filepath.Join("workspace", "out")) {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		return os.WriteFile(filepath.Join(dir, p), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	script, _ := os.ReadFile("script.json")
	os.WriteFile(filepath.Join(dir, "script.json"), script, 0o644)
	cfg, _ := os.ReadFile("agent.toml")
	text := string(cfg)
	for _, name := range []string{"fs", "calc", "policy"} {
		text = strings.ReplaceAll(text, "../../plugins/"+name+"/"+name+".wasm", wasmbuild.ForTest(t, "plugins/"+name))
	}
	text += "\n[runtime]\ncache_dir = \"" + wasmbuild.TestCacheDir() + "\"\n"
	os.WriteFile(filepath.Join(dir, "agent.toml"), []byte(text), 0o644)
	return dir
}

func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugins")
	}
	dir := copyDemo(t)
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), []string{"run", "--config", filepath.Join(dir, "agent.toml"), "Tidy up my notes."},
		cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	status := errOut.String()
	for _, want := range []string{
		// Four tools at once, each in its own sandbox, with progress.
		"→ find", "→ grep", "→ read", "→ calc",
		"… grep scanning /work",
		"✓ calc", "2020",
		// The sequential write batch: the summary is written, .env is blocked.
		"✓ write", "Created out/summary.md",
		"✗ write", "Blocked by policy rule no-secrets: secrets are not written by the agent",
		// Leaving the granted directory fails cleanly.
		"✗ read", "path ../../../README.md is outside the granted directories (/work)",
	} {
		if !strings.Contains(status, want) {
			t.Errorf("stderr lacks %q:\n%s", want, status)
		}
	}
	if !strings.Contains(out.String(), "Done. I found 3 notes") {
		t.Errorf("stdout:\n%s", out.String())
	}
	// The four calls of the first batch all start before any ends.
	starts := strings.LastIndex(status, "→ calc")
	if ends := strings.Index(status, "✓ find"); ends >= 0 && ends < starts {
		t.Errorf("a call ended before the batch had started:\n%s", status)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "workspace/out/summary.md")); err != nil || !strings.Contains(string(b), "Trip budget: 2020 EUR") {
		t.Errorf("summary: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "workspace/out/.env")); err == nil {
		t.Error("the blocked .env was written")
	}
}
