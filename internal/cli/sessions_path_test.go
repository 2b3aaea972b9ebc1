package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// sessions rm|show|export and --session act on a file named by path only
// when it is a session file; any other file is left as it was.
func TestSessionsPathNotSession(t *testing.T) {
	chdir(t)
	cfg := scriptedConfig(t, `{"turns":[{"content":"hi"}]}`)
	victim := filepath.Join(t.TempDir(), "precious.txt")
	os.WriteFile(victim, []byte("keep me\n"), 0o600)
	for _, args := range [][]string{
		{"sessions", "rm", "--config", cfg, victim},
		{"sessions", "show", "--config", cfg, victim},
		{"sessions", "export", "--format", "jsonl", "--config", cfg, victim},
		{"run", "--config", cfg, "--session", victim, "hello"},
		{"run", "--config", cfg, "--fork", victim, "hello"},
	} {
		_, e, code := runCLI(t, args...)
		if code == cli.ExitOK || !strings.Contains(e, victim+" is not a session file") {
			t.Errorf("%v: exit %d: %s", args, code, e)
		}
		if data, err := os.ReadFile(victim); err != nil || string(data) != "keep me\n" {
			t.Fatalf("%v: the file is gone or changed: %v", args, err)
		}
		if _, err := os.Lstat(victim + ".lock"); err == nil {
			t.Fatalf("%v: left a lock file", args)
		}
	}
}

// The sessions commands read only [sessions] of agent.toml: a tools-only
// file (no [model]) does for them, as for wasmagent mcp.
func TestSessionsToolsOnlyConfig(t *testing.T) {
	chdir(t)
	cfg := filepath.Join(t.TempDir(), "agent.toml")
	os.WriteFile(cfg, []byte("[sessions]\ndir = \"kept\"\n"), 0o644)
	_, e, code := runCLI(t, "sessions", "ls", "--config", cfg)
	if code != cli.ExitOK || !strings.Contains(e, "no sessions in "+filepath.Join(filepath.Dir(cfg), "kept")) {
		t.Fatalf("exit %d: %s", code, e)
	}
	if _, e, code := runCLI(t, "sessions", "rm", "--config", cfg, "nosuch"); code != cli.ExitUsage || !strings.Contains(e, "no such session") {
		t.Fatalf("exit %d: %s", code, e)
	}
}
