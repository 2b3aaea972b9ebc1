package config_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host/config"
)

// The [serve] keys the root agent.toml documents (commented out) load as
// written, paths relative to the file.
func TestServeSampleLoads(t *testing.T) {
	text, err := os.ReadFile("../../agent.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(text)
	i := strings.Index(s, "# [serve]")
	if i < 0 {
		t.Fatal("the root agent.toml documents no [serve]")
	}
	var body strings.Builder
	key := regexp.MustCompile(`^# ([a-z_]+ = .*|\[serve\])$`)
	for _, line := range strings.Split(s[i:], "\n") {
		if strings.HasPrefix(line, "# [") && line != "# [serve]" {
			break
		}
		if m := key.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[1], "tokens_env") {
			body.WriteString(m[1] + "\n")
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.toml")
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"turns":[]}`), 0o644)
	os.WriteFile(path, []byte("[model]\nprovider = \"scripted\"\nscript = \"s.json\"\n"+body.String()), 0o644)
	f, err := config.Load(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, body.String())
	}
	v := f.Serve
	if v.Addr != "127.0.0.1:8080" || v.TokensFile != filepath.Join(dir, "serve-tokens.txt") || v.Dir != filepath.Join(dir, "serve-state") ||
		v.MaxSessions != 100 || v.MaxRuns != 4 || v.MaxToolCallsPerMinute != 600 || v.MaxBody != 8<<20 || v.MaxPrompt != 4<<20 ||
		v.DrainTimeout.Duration != 30*time.Second || v.Heartbeat.Duration != 15*time.Second {
		t.Fatalf("[serve] = %+v", v)
	}
	os.WriteFile(filepath.Join(dir, "serve-tokens.txt"), []byte("alice sha256:00\n"), 0o600)
	if data, where, err := f.ServeTokens(); err != nil || string(data) != "alice sha256:00\n" || where != v.TokensFile {
		t.Fatalf("ServeTokens: %q %q %v", data, where, err)
	}
}

func TestServeKeyErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"[serve]\nmax_run = 3\n", `did you mean "max_runs"`},
		{"[serve]\nheartbeat = \"10ms\"\n", "serve.heartbeat"},
		{"[serve]\naddr = \"localhost\"\n", "serve.addr"},
		{"[serve]\nmax_sessions = -2\n", "serve.max_sessions"},
		{"[serve]\ntokens_env = \"A\"\ntokens_file = \"b\"\n", "not both"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "agent.toml")
		os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"turns":[]}`), 0o644)
		os.WriteFile(path, []byte("[model]\nprovider = \"scripted\"\nscript = \"s.json\"\n"+c.body), 0o644)
		if _, err := config.Load(path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
}
