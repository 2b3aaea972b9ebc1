package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// A plugin written as a name ("fs", as a Claude Code or pi user names a
// tool) or as a directory ("plugins/fs", the sources) is answered with
// what a plugin path is and the file likely meant, for every first-party
// plugin and for a name of one's own; a .wasm path that is not there keeps
// the plain answer. It said only `"fs" does not exist` or `"plugins/fs" is
// a directory`.
func TestPluginPathNotAWasmFile(t *testing.T) {
	dir := t.TempDir()
	parse := func(plugin string) string {
		text := "[model]\nprovider = \"openai\"\nname = \"m\"\n[[tool]]\nplugin = \"" + plugin + "\"\n"
		_, err := Parse(filepath.Join(dir, "agent.toml"), []byte(text))
		if err == nil {
			t.Fatalf("%s: no error", plugin)
		}
		return err.Error()
	}
	for _, name := range append(slices.Clone(firstParty), "mytool") {
		os.MkdirAll(filepath.Join(dir, "plugins", name), 0o755)
		got := parse(name)
		want := "a plugin is the path of its built .wasm file"
		if name != "mytool" {
			want += ": the first-party " + name + " is plugins/" + name + "/" + name + ".wasm"
		}
		if !strings.Contains(got, `tool[0].plugin: "`+name+`" does not exist`) || !strings.Contains(got, want) {
			t.Errorf("plugin = %q: %s\nwant %q", name, got, want)
		}
		for _, written := range []string{"plugins/" + name, "plugins/" + name + "/"} {
			got = parse(written)
			if want := `is a directory: a plugin is its built .wasm file ("plugins/` + name + `/` + name + `.wasm"`; !strings.Contains(got, want) {
				t.Errorf("plugin = %q: %s\nwant %q", written, got, want)
			}
		}
		got = parse(name + ".wasm")
		if strings.Contains(got, "a plugin is") {
			t.Errorf("plugin = %q: %s", name+".wasm", got)
		}
	}
}

// firstParty is the repository's plugins/ directory.
func TestFirstPartyNames(t *testing.T) {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "plugins"))
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if !slices.Equal(names, firstParty) {
		t.Fatalf("plugins/ holds %v; firstParty lists %v", names, firstParty)
	}
}
