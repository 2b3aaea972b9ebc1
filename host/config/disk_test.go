package config_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/runtime"
)

// The disk caps of a plugin's grants reach the runtime's grants; left
// out, the runtime's defaults hold.
func TestDiskCapsWired(t *testing.T) {
	s, err := wire(t, write(t, "[[tool]]\nplugin = \"PROBE\"\n[tool.grants]\nmax_disk = \"2GiB\"\nmax_new_files = 500\n", `{"content":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if g := s.Tools[0].Grants; g.MaxDiskBytes != 2<<30 || g.MaxNewFiles != 500 {
		t.Fatalf("grants %+v", g)
	}
	s, err = wire(t, write(t, "[[tool]]\nplugin = \"PROBE\"\n", `{"content":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if g := s.Tools[0].Grants; g.MaxDiskBytes != runtime.DefaultMaxDiskBytes || g.MaxNewFiles != runtime.DefaultMaxNewFiles {
		t.Fatalf("grants %+v", g)
	}
}

// A disk cap of the wrong type or negative is an error at its key and
// line.
func TestDiskCapsChecked(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "p.wasm"), nil, 0o644)
	for _, c := range []struct{ line, want string }{
		{`max_new_files = -1`, "tool[0].grants.max_new_files: -1 is negative"},
		{`max_new_files = "many"`, "tool[0].grants.max_new_files"},
		{`max_new_files = 1.5`, "tool[0].grants.max_new_files"},
		{`max_disk = -5`, "tool[0].grants.max_disk"},
		{`max_disk = "lots"`, "tool[0].grants.max_disk"},
		{`max_disk = true`, "tool[0].grants.max_disk"},
	} {
		text := "[model]\nprovider = \"scripted\"\nscript = \"s.json\"\n[[tool]]\nplugin = \"p.wasm\"\n[tool.grants]\n" + c.line + "\n"
		_, err := config.Parse(filepath.Join(dir, "agent.toml"), []byte(text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), ":7:") {
			t.Errorf("%s: %v, want an error at line 7 with %q", c.line, err, c.want)
		}
	}
}

// Every cap of runtime.Grants names, in its errors, an agent.toml key
// that exists under a plugin's grants.
func TestCapKeysAreGrantKeys(t *testing.T) {
	keys := map[string]bool{}
	for f := range reflect.TypeFor[config.Grants]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		keys[name] = true
	}
	n := 0
	for f := range reflect.TypeFor[runtime.Grants]().Fields() {
		if !strings.HasPrefix(f.Name, "Max") && f.Name != "MemoryPages" {
			continue
		}
		n++
		if k := runtime.GrantKey(f.Name); !keys[k] {
			t.Errorf("runtime.Grants.%s: agent.toml key %q is not a grants key", f.Name, k)
		}
	}
	if n < 13 {
		t.Fatalf("only %d caps found", n)
	}
}

// [runtime] max_module_bytes is a size; a negative one is an error at its
// key.
func TestMaxModuleBytesKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.toml")
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"turns":[]}`), 0o644)
	head := "[model]\nprovider = \"scripted\"\nscript = \"s.json\"\n[runtime]\n"
	f, err := config.Parse(path, []byte(head+"max_module_bytes = \"256MiB\"\n"))
	if err != nil || f.Runtime.MaxModuleBytes != 256<<20 {
		t.Fatalf("256MiB: %v, %+v", err, f)
	}
	if _, err := config.Parse(path, []byte(head+"max_module_bytes = -1\n")); err == nil || !strings.Contains(err.Error(), ":5: runtime.max_module_bytes") {
		t.Fatalf("-1: %v", err)
	}
}

// A plugin's grants protect the configuration and the plugin files it
// names (runtime.Grants.Protected).
func TestConfigurationIsProtected(t *testing.T) {
	path := write(t, "[[tool]]\nplugin = \"PROBE\"\n[[hook]]\nplugin = \"PROBE\"\n", `{"content":"x"}`)
	s, err := wire(t, path)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(s.Tools[0].Grants.Protected, " ")
	for _, want := range []string{path, s.File.Tools[0].Plugin.Plugin, s.File.Hooks[0].Plugin.Plugin} {
		if !strings.Contains(got, want) {
			t.Errorf("protected %q, want %s among them", got, want)
		}
	}
}
