package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// --print-config gives each client the command line with absolute paths;
// an unknown client is a usage error.
func TestMCPPrintConfig(t *testing.T) {
	cfg := scriptedConfig(t, `{"turns":[]}`)
	rel, _ := filepath.Rel(mustWd(t), cfg)
	for _, c := range []struct{ client, want string }{
		{"claude", "claude mcp add wasmagent -- "},
		{"cursor", `"mcpServers"`},
		{"codex", "[mcp_servers.wasmagent]"},
	} {
		var out, errb lockedBuffer
		code := cli.Main(context.Background(), []string{"mcp", "--config", rel, "--print-config", c.client}, cli.Env{Stdout: &out, Stderr: &errb})
		if code != cli.ExitOK || !strings.Contains(out.String(), c.want) || !strings.Contains(out.String(), cfg) {
			t.Fatalf("%s: exit %d, out:\n%s\nerr: %s", c.client, code, out.String(), errb.String())
		}
		exe, _ := os.Executable()
		exe, _ = filepath.EvalSymlinks(exe)
		if !strings.Contains(out.String(), exe) {
			t.Fatalf("%s: the snippet does not name this program (%s):\n%s", c.client, exe, out.String())
		}
	}
	var out, errb lockedBuffer
	if code := cli.Main(context.Background(), []string{"mcp", "--config", cfg, "--print-config", "vim"}, cli.Env{Stdout: &out, Stderr: &errb}); code != cli.ExitUsage || !strings.Contains(errb.String(), "claude, cursor and codex") {
		t.Fatalf("unknown client: exit %d, %s", code, errb.String())
	}
	// The client is checked before the configuration; a configuration
	// that would not start the server is reported now, as config validate
	// reports it, and no snippet is printed (a client would only show
	// the server as failed).
	dir := t.TempDir()
	broken := filepath.Join(dir, "agent.toml")
	os.WriteFile(broken, []byte("[[tool]]\nplugin = \"gone.wasm\"\n"), 0o644)
	for _, c := range []struct{ config, client, want string }{
		{filepath.Join(dir, "nope.toml"), "vim", "claude, cursor and codex"},
		{filepath.Join(dir, "nope.toml"), "claude", "nope.toml does not exist"},
		{broken, "cursor", broken + `:2: tool[0].plugin: "gone.wasm" does not exist`},
	} {
		var out, errb lockedBuffer
		code := cli.Main(context.Background(), []string{"mcp", "--config", c.config, "--print-config", c.client}, cli.Env{Stdout: &out, Stderr: &errb})
		if code != cli.ExitUsage || out.String() != "" || !strings.Contains(errb.String(), c.want) || strings.Count(errb.String(), c.config) > 1 {
			t.Errorf("%s, %s: exit %d, stdout %q, stderr %q; want %q", c.config, c.client, code, out.String(), errb.String(), c.want)
		}
	}
}

// Listening beyond loopback without a token is refused before anything
// listens.
func TestMCPHTTPNeedsToken(t *testing.T) {
	cfg := scriptedConfig(t, `{"turns":[]}`)
	var out, errb lockedBuffer
	code := cli.Main(context.Background(), []string{"mcp", "--config", cfg, "--http", "0.0.0.0:0"}, cli.Env{Stdout: &out, Stderr: &errb})
	if code != cli.ExitFailed || !strings.Contains(errb.String(), "token_env or token_file") {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
}

func mustWd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// The server says which wasmagent it is, as --version does: a client
// shows serverInfo's version, and an empty one says nothing.
func TestMCPServerInfoVersion(t *testing.T) {
	cfg := scriptedConfig(t, `{"turns":[]}`)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	var out, errb lockedBuffer
	code := cli.Main(context.Background(), []string{"mcp", "--config", cfg}, cli.Env{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errb})
	var v struct {
		Result struct {
			ServerInfo struct{ Name, Version string } `json:"serverInfo"`
		} `json:"result"`
	}
	line, _, _ := strings.Cut(out.String(), "\n")
	if err := json.Unmarshal([]byte(line), &v); err != nil || code != cli.ExitOK {
		t.Fatalf("exit %d, %v: %q %q", code, err, out.String(), errb.String())
	}
	if v.Result.ServerInfo.Name != "wasmagent" || v.Result.ServerInfo.Version == "" {
		t.Fatalf("serverInfo %+v", v.Result.ServerInfo)
	}
	if vout, _, _ := runCLI(t, "--version"); !strings.Contains(vout, "wasmagent "+v.Result.ServerInfo.Version+" (") {
		t.Errorf("serverInfo's version %q is not --version's: %q", v.Result.ServerInfo.Version, vout)
	}
}
