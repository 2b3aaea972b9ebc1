package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// pluginPrefix is how an error names a plugin: "plugin NAME: ".
var pluginPrefix = regexp.MustCompile(`plugin [^ :(]+: `)

// badPlugins are plugin files that fail to load, one of each way a load
// fails before or at describe, with the words the failure must say.
func badPlugins(t *testing.T) map[string]struct {
	wasm []byte
	says string
} {
	big := wasmbuild.ConstModule(map[string]string{"describe": `{"abi":1,"name":"big","tools":[{"name":"t","description":"d","parameters":{"type":"object"}}]}`, "execute": "{}"})
	big.MemoryPages = 40 // more than --memory-mib 2, memory = "2MiB"
	return map[string]struct {
		wasm []byte
		says string
	}{
		"notwasm":    {[]byte("# notes\n"), "not a valid Wasm module"},
		"nodescribe": {wasmbuild.ConstPlugin(map[string]string{"execute": "x"}), "not a wasmagent plugin"},
		"badjson":    {wasmbuild.DescribeOnly("{nope"), "not JSON"},
		"noexecute":  {wasmbuild.DescribeOnly(`{"abi":1,"name":"x","tools":[{"name":"t","description":"d","parameters":{"type":"object"}}]}`), `does not export "execute"`},
		"bigmemory":  {big.Encode(), "pages of memory"},
	}
}

// A plugin that does not load is named once, by its file, in every
// command that loads one (plugin call, plugin inspect, config validate):
// neither the runtime's own prefix (the file again) nor the plugin's name
// repeats it.
func TestLoadErrorNamesTheFileOnce(t *testing.T) {
	dir := t.TempDir()
	for name, p := range badPlugins(t) {
		path := filepath.Join(dir, name+".wasm")
		if err := os.WriteFile(path, p.wasm, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := filepath.Join(dir, name+".toml")
		os.WriteFile(cfg, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\n\n[[tool]]\nplugin = \""+name+".wasm\"\n[tool.grants]\nmemory = \"2MiB\"\n"), 0o644)
		commands := [][]string{
			{"plugin", "call", "--memory-mib", "2", path, "t", "{}"},
			{"config", "validate", cfg},
		}
		if name != "bigmemory" { // inspect grants the default memory
			commands = append(commands, []string{"plugin", "inspect", path})
		}
		for _, args := range commands {
			_, errOut, code := runCLI(t, args...)
			if code != cli.ExitUsage || !strings.Contains(errOut, p.says) {
				t.Errorf("%s: exit %d, stderr %q; want exit 2 saying %q", strings.Join(args[:2], " ")+" "+name, code, errOut, p.says)
				continue
			}
			if n := strings.Count(errOut, name+".wasm"); n != 1 {
				t.Errorf("%s %s: the file is named %d times:\n%s", strings.Join(args[:2], " "), name, n, errOut)
			}
			if n := len(pluginPrefix.FindAllString(errOut, -1)); n > 1 {
				t.Errorf("%s %s: \"plugin NAME:\" %d times:\n%s", strings.Join(args[:2], " "), name, n, errOut)
			}
		}
	}
	// Pages are said in the grant's own unit too.
	if _, errOut, _ := runCLI(t, "plugin", "call", "--memory-mib", "2", filepath.Join(dir, "bigmemory.wasm"), "t"); !strings.Contains(errOut, "hint: pages are 64 KiB; grant at least --memory-mib 3\n") {
		t.Errorf("no --memory-mib hint: %s", errOut)
	}
	// A file that is not there: its name once, then why.
	missing := filepath.Join(dir, "missing.wasm")
	for _, args := range [][]string{{"plugin", "call", missing, "t"}, {"plugin", "inspect", missing}} {
		_, errOut, code := runCLI(t, args...)
		if code != cli.ExitUsage || strings.Count(errOut, "missing.wasm") != 1 || !strings.Contains(errOut, "no such file") {
			t.Errorf("%s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
	}
}
