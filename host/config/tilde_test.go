package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/config"
)

// A path written with ~ is reported at its key, with the whole path to
// write: nothing expands it, and as a relative path it would name a
// directory called "~" beside the file (sessions and the cache would be
// created there, silently). Every key that holds a path is checked once,
// with no "does not exist" after it.
func TestTildeIsNotExpanded(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.toml")
	keys := map[string]string{
		"agent.system_prompt_file":    "~/prompt.md",
		"tool[0].plugin":              "~/p.wasm",
		"tool[0].grants.dirs[0].host": "~/notes",
		"sessions.dir":                "~/sessions",
		"runtime.cache_dir":           "~/cache",
		"audit.path":                  "~/audit.jsonl",
		"mcp.token_file":              "~/token",
	}
	os.WriteFile(path, []byte(`[model]
provider = "openai"
name = "m"
[agent]
system_prompt_file = "~/prompt.md"
[runtime]
cache_dir = "~/cache"
[audit]
path = "~/audit.jsonl"
[sessions]
dir = "~/sessions"
[mcp]
token_file = "~/token"
[[tool]]
plugin = "~/p.wasm"
[tool.grants]
dirs = [{ host = "~/notes", guest = "/work" }]
`), 0o644)
	_, err := config.Load(path)
	got := problems(t, err)
	for key, written := range keys {
		e := got[key]
		if e == nil || !strings.Contains(e.Msg, "~ is not expanded in agent.toml; write \""+filepath.Join(home, written[2:])+"\"") {
			t.Errorf("%s = %q: %v", key, written, e)
		}
	}
	if len(got) != len(keys) {
		t.Errorf("%d problems, want %d:\n%v", len(got), len(keys), err)
	}
}
