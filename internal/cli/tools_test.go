package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
)

// A configuration without tools or hooks says so, rather than printing an
// empty table.
func TestToolsNone(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "agent.toml")
	os.WriteFile(cfg, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n"), 0o644)
	var out, errOut lockedBuffer
	code := cli.Main(context.Background(), []string{"tools", "--config", cfg}, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != cli.ExitOK || !strings.Contains(out.String(), "no tools and no hooks") || strings.Contains(out.String(), "TOOL") {
		t.Fatalf("exit %d, %q, %q", code, out.String(), errOut.String())
	}
}

// A configuration whose first-party plugins are not built yet (a fresh
// checkout before make plugins) says how to build them, where.
func TestUnbuiltPluginsHint(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "Makefile"), []byte("plugins:\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "plugins", "calc"), 0o755)
	os.WriteFile(filepath.Join(root, "plugins", "calc", "main.go"), []byte("package main\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "conf"), 0o755)
	cfg := filepath.Join(root, "conf", "agent.toml")
	os.WriteFile(cfg, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n[[tool]]\nplugin = \"../plugins/calc/calc.wasm\"\n"), 0o644)
	for _, args := range [][]string{{"config", "validate", cfg}, {"tools", "--config", cfg}, {"run", "--config", cfg, "hi"}} {
		var out, errOut lockedBuffer
		code := cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
		if code != cli.ExitUsage || !strings.Contains(errOut.String(), "hint: the plugins are built from their sources: run make plugins in "+root+"\n") {
			t.Errorf("%q: exit %d:\n%s", args, code, errOut.String())
		}
	}
	os.Remove(filepath.Join(root, "plugins", "calc", "main.go"))
	var out, errOut lockedBuffer
	cli.Main(context.Background(), []string{"config", "validate", cfg}, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if strings.Contains(errOut.String(), "hint:") {
		t.Errorf("a hint for a plugin with no sources beside it:\n%s", errOut.String())
	}
}

// config validate passes a configuration for OpenAI whose key variable is
// empty (the key is read at run time), and says that run will refuse it.
func TestValidateNotesMissingKey(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "agent.toml")
	os.WriteFile(cfg, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\napi_key_env = \"WA_VALIDATE_KEY\"\n"), 0o644)
	for _, key := range []string{"", "sk-x"} {
		t.Setenv("WA_VALIDATE_KEY", key)
		var out, errOut lockedBuffer
		code := cli.Main(context.Background(), []string{"config", "validate", cfg}, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
		noted := strings.Contains(errOut.String(), "note: $WA_VALIDATE_KEY is empty here")
		if code != cli.ExitOK || !strings.Contains(out.String(), ": ok (0 tools, 0 hooks)") || noted != (key == "") {
			t.Errorf("key %q: exit %d, %q, %q", key, code, out.String(), errOut.String())
		}
	}
}

// config validate takes the file as every other command does (--config
// FILE), or as its argument, but not both; a file with problems is
// reported the same either way, a plugin it names that is not there as
// one of them (not as a configuration that does not exist).
func TestValidateConfigFlag(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	os.WriteFile(good, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n"), 0o644)
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n[[tool]]\nplugin = \"gone.wasm\"\n"), 0o644)
	for _, args := range [][]string{{"config", "validate", good}, {"config", "validate", "--config", good}} {
		if out, errOut, code := runCLI(t, args...); code != cli.ExitOK || out != good+": ok (0 tools, 0 hooks)\n" {
			t.Errorf("%q: exit %d, %q, %q", args, code, out, errOut)
		}
	}
	want := bad + `:6: tool[0].plugin: "gone.wasm" does not exist`
	for _, args := range [][]string{{"config", "validate", bad}, {"config", "validate", "--config", bad}} {
		if _, errOut, code := runCLI(t, args...); code != cli.ExitUsage || !strings.HasPrefix(errOut, want) || strings.Contains(errOut, "configuration: ") {
			t.Errorf("%q: exit %d, %q; want it to start %q", args, code, errOut, want)
		}
	}
	if _, errOut, code := runCLI(t, "config", "validate", "--config", good, bad); code != cli.ExitUsage || !strings.Contains(errOut, "not both") {
		t.Errorf("both: exit %d, %q", code, errOut)
	}
}
