package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/config"
)

// The bearer token comes from the variable or the file [mcp] names; an
// empty, short or missing one is an error naming the key and line.
func TestMCPToken(t *testing.T) {
	dir := t.TempDir()
	good := "0123456789abcdef0123456789abcdef"
	os.WriteFile(filepath.Join(dir, "token.txt"), []byte(good+"\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "short.txt"), []byte("abc"), 0o600)
	t.Setenv("I16_TOKEN", good)
	t.Setenv("I16_EMPTY", "")
	for _, c := range []struct{ mcp, want, err string }{
		{``, "", ""},
		{`token_env = "I16_TOKEN"`, good, ""},
		{`token_file = "token.txt"`, good, ""},
		{`token_env = "I16_EMPTY"`, "", "mcp.token_env: the environment variable I16_EMPTY is empty or not set"},
		{`token_file = "short.txt"`, "", "mcp.token_file: the token is 3 bytes; use at least 16"},
		{`token_file = "absent.txt"`, "", `mcp.token_file: "`},
	} {
		path := filepath.Join(dir, "agent.toml")
		os.WriteFile(path, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\n[mcp]\n"+c.mcp+"\n"), 0o644)
		f, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := f.MCPToken()
		if tok != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: token %q, err %v; want %q, %q", c.mcp, tok, err, c.want, c.err)
		}
		if err != nil && !strings.Contains(err.Error(), "agent.toml:5:") {
			t.Errorf("%s: the error does not name the line: %v", c.mcp, err)
		}
	}
}

// LoadTools accepts a file without [model] (serving tools needs none);
// Load does not, and a [model] that is there is still checked.
func TestLoadToolsWithoutModel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.toml")
	os.WriteFile(path, []byte("[runtime]\ncache_dir = \"off\"\n"), 0o644)
	if _, err := config.LoadTools(path); err != nil {
		t.Fatalf("LoadTools: %v", err)
	}
	if _, err := config.Load(path); err == nil || !strings.Contains(err.Error(), "model.provider: missing") {
		t.Fatalf("Load: err = %v", err)
	}
	os.WriteFile(path, []byte("[model]\nprovider = \"nope\"\n"), 0o644)
	if _, err := config.LoadTools(path); err == nil || !strings.Contains(err.Error(), `"nope" is not`) {
		t.Fatalf("LoadTools with a bad model: err = %v", err)
	}
}
