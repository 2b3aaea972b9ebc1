package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// A plugin file that is not WebAssembly — most often a plugin built for
// this machine (go build without GOOS=wasip1 GOARCH=wasm) — is said to be
// what it is, with the build line, by plugin call, plugin inspect and
// every command that loads agent.toml; it was only "bad magic or
// version".
func TestNotWasmSaysWhatItIs(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ head, say string }{
		{"\x7fELF\x02\x01\x01", "is an ELF executable for this machine, not WebAssembly: build a Go plugin with GOOS=wasip1 GOARCH=wasm go build -trimpath -buildmode=c-shared"},
		{"\xcf\xfa\xed\xfe\x07", "is a Mach-O executable for this machine"},
		{"MZ\x90\x00", "is a Windows executable for this machine"},
		{"  (module (func))", "is WebAssembly text: compile it to a module first"},
		{"#!/bin/sh\necho hi\n", `does not start as a WebAssembly module does (\0asm)`},
	} {
		plugin := filepath.Join(dir, "p"+strconv.Itoa(len(c.head))+".wasm")
		os.WriteFile(plugin, []byte(c.head+strings.Repeat("\x00", 100)), 0o644)
		cfg := filepath.Join(dir, "agent.toml")
		os.WriteFile(cfg, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n[runtime]\ncache_dir = \"off\"\n[[tool]]\nplugin = "+strconv.Quote(plugin)+"\n"), 0o644)
		for _, args := range [][]string{{"plugin", "call", plugin, "t"}, {"plugin", "inspect", plugin}, {"config", "validate", cfg}, {"tools", "--config", cfg}} {
			_, errOut, code := runMain(args...)
			if code != ExitUsage || !strings.Contains(errOut, "hint: the file "+c.say) || strings.Count(errOut, plugin) != 1 {
				t.Errorf("%q on %q: exit %d, want 2 saying %q:\n%s", args, c.head[:4], code, c.say, errOut)
			}
		}
	}
	if notWasmHint(os.ErrNotExist, "x.wasm") != "" {
		t.Error("a hint for another error")
	}
}

// A WebAssembly module that is no wasmagent plugin — a plain Extism
// plugin, exporting count_vowels and no describe — is answered, by plugin
// call and by every command that loads agent.toml, with what a wasmagent
// plugin exports, and its own exports (the words are wasmtool's).
func TestPlainExtismPluginSaysWhatAPluginIs(t *testing.T) {
	dir := t.TempDir()
	plugin := filepath.Join(dir, "count_vowels.wasm")
	os.WriteFile(plugin, wasmbuild.ConstPlugin(map[string]string{"count_vowels": `{"count":3}`}), 0o644)
	cfg := filepath.Join(dir, "agent.toml")
	os.WriteFile(cfg, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n[runtime]\ncache_dir = \"off\"\n[[tool]]\nplugin = "+strconv.Quote(plugin)+"\n"), 0o644)
	for _, args := range [][]string{{"plugin", "call", plugin, "count_vowels", "{}"}, {"config", "validate", cfg}, {"tools", "--config", cfg}} {
		_, errOut, code := runMain(args...)
		if code != ExitUsage || !strings.Contains(errOut, `so it is not a wasmagent plugin, which is an Extism module that also exports "describe"`) || !strings.Contains(errOut, "count_vowels") {
			t.Errorf("%q: exit %d:\n%s", args, code, errOut)
		}
	}
}
