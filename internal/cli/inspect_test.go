package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/cli"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

func inspect(path string) (stdout, stderr string, code int) {
	var out, errOut lockedBuffer
	code = cli.Main(context.Background(), []string{"plugin", "inspect", path}, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	return out.String(), errOut.String(), code
}

// Every first-party plugin can be inspected, those that need a grant
// (fs: a directory, fetch: a host) too: inspect grants nothing, shows the
// description, and says what the needs are and which flag grants them.
func TestInspectEveryFirstPartyPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugins")
	}
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "plugins", "*", "main.go"))
	if len(dirs) < 5 {
		t.Fatalf("only %d Go plugins found", len(dirs))
	}
	needs := map[string]string{"fs": "--dir HOST:/work", "fetch": "--host NAME"}
	for _, main := range dirs {
		name := filepath.Base(filepath.Dir(main))
		out, errOut, code := inspect(wasmbuild.ForTest(t, "plugins/"+name))
		if code != cli.ExitOK || !strings.Contains(out, "describe {") || !strings.Contains(out, `"tools"`) && !strings.Contains(out, `"hooks"`) {
			t.Errorf("%s: exit %d\n%s\n%s", name, code, out, errOut)
			continue
		}
		if flag := needs[name]; flag != "" && !strings.Contains(out, "granted by: plugin call "+flag) {
			t.Errorf("%s: the needs and their flag are not shown:\n%s", name, out)
		}
	}
}

// A file that is not there, or not a plugin, is bad input (exit 2), its
// name said once.
func TestInspectBadFile(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.md")
	os.WriteFile(text, []byte("# not wasm\n"), 0o644)
	for _, path := range []string{filepath.Join(dir, "missing.wasm"), text, dir} {
		out, errOut, code := inspect(path)
		if code != cli.ExitUsage || out != "" || strings.Count(errOut, path) != 1+strings.Count(errOut, path+"/") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", path, code, out, errOut)
		}
	}
}
