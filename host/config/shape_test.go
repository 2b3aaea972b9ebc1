package config_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/config"
)

// The shapes a new user gets wrong are answered with the shape to write:
// [tool] or [hook] for [[tool]], a table where an array of them goes
// (dirs = { … }, [tool.grants.dirs]), a directory grant written as a
// path (dirs = ["."]), a string where a list goes (hosts = "…"), and
// the plugin's file under another key (path,
// file, wasm, …, which "did you mean" answered with "gate"). The
// directory grant it writes loads.
func TestShapesSaidAsWritten(t *testing.T) {
	dir := t.TempDir()
	parse := func(body string) string {
		_, err := config.Parse(filepath.Join(dir, "agent.toml"), []byte("[model]\nprovider = \"openai\"\nname = \"m\"\n"+body))
		return fmt.Sprint(err)
	}
	for _, c := range []struct{ body, want string }{
		{"[tool]\nplugin = \"x.wasm\"\n", "tool: want an array of tables, not a table: [[tool]] (two brackets) starts each entry"},
		{"[hook]\nplugin = \"x.wasm\"\n", "hook: want an array of tables, not a table: [[hook]] (two brackets) starts each entry"},
		{"[[tool]]\nplugin = \"x.wasm\"\n[tool.grants.dirs]\nhost = \".\"\nguest = \"/work\"\n", "tool[0].grants.dirs: want an array of tables, not a table: [[tool.grants.dirs]] (two brackets) starts each entry, or dirs = [{ … }, { … }]"},
		{"[[tool]]\nplugin = \"x.wasm\"\ngrants = { dirs = { host = \".\", guest = \"/work\" } }\n", "[[tool.grants.dirs]] (two brackets)"},
	} {
		if got := parse(c.body); !strings.Contains(got, c.want) {
			t.Errorf("%q:\n%s\nwant %q", c.body, got, c.want)
		}
	}
	for _, entry := range []string{"tool", "hook"} {
		for _, k := range []string{"path", "file", "wasm", "module", "source", "src", "url", "Path", "wasm_path", "filename"} {
			got := parse(fmt.Sprintf("[[%s]]\n%s = \"x.wasm\"\n", entry, k))
			if want := entry + `[0].` + k + `: unknown key (the plugin's .wasm file is plugin = "…"`; !strings.Contains(got, want) || strings.Contains(got, "did you mean") {
				t.Errorf("[[%s]] %s: %s", entry, k, got)
			}
		}
	}
	if got := parse("[agent]\npath = \"x\"\n"); strings.Contains(got, "plugin =") {
		t.Errorf("[agent] path: %s", got)
	}
	// A string where a list of them goes: hosts = "api.github.com". The
	// line it writes loads (past the key: the plugin is not there).
	line := regexp.MustCompile(`: ([a-z_]+ = \[".*"\])`)
	for _, c := range []struct{ section, key, value string }{
		{"[[tool]]\nplugin = \"x.wasm\"\n[tool.grants]\n", "hosts", "api.github.com"},
		{"[[tool]]\nplugin = \"x.wasm\"\n", "disable", "read"},
		{"[[tool]]\nplugin = \"x.wasm\"\n", "sequential", "write"},
		{"[[hook]]\nplugin = \"x.wasm\"\n", "tools", "write"},
	} {
		got := parse(fmt.Sprintf("%s%s = %q\n", c.section, c.key, c.value))
		m := line.FindStringSubmatch(got)
		if m == nil || m[1] != fmt.Sprintf("%s = [%q]", c.key, c.value) {
			t.Errorf("%s = %q: %s", c.key, c.value, got)
			continue
		}
		if again := parse(c.section + m[1] + "\n"); strings.Contains(again, "want an array") {
			t.Errorf("the line it writes, %s: %s", m[1], again)
		}
	}
	write := regexp.MustCompile(`a directory grant is (\{ [^}]* \})`)
	for _, host := range []string{".", dir, "../elsewhere"} {
		got := parse(fmt.Sprintf("[[tool]]\nplugin = \"x.wasm\"\n[tool.grants]\ndirs = [%q]\n", host))
		m := write.FindStringSubmatch(got)
		if m == nil || !strings.Contains(m[1], fmt.Sprintf("host = %q", host)) {
			t.Errorf("dirs = [%q]: %s", host, got)
			continue
		}
		if host == dir {
			if got := parse(fmt.Sprintf("[[tool]]\nplugin = \"x.wasm\"\n[tool.grants]\ndirs = [%s]\n", m[1])); strings.Contains(got, "dirs") {
				t.Errorf("the grant it writes, %s: %s", m[1], got)
			}
		}
	}
}
