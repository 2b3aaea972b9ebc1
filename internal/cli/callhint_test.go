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

// A plugin whose needs are not granted says which flag grants them, and
// the flag as shown makes the call work.
func TestCallMissingGrantSaysTheFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugins")
	}
	fs := wasmbuild.ForTest(t, "plugins/fs")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "note.txt"), []byte("hello\n"), 0o644)
	t.Chdir(dir)
	_, errOut, code := call(t, "", fs, "read", `{"path":"note.txt"}`)
	m := regexp.MustCompile(`\((--dir \S+): this directory\)`).FindStringSubmatch(errOut)
	if code != cli.ExitUsage || m == nil {
		t.Fatalf("exit %d, no --dir to give:\n%s", code, errOut)
	}
	out, errOut, code := call(t, "", strings.Fields(m[1])[0], strings.Fields(m[1])[1], fs, "read", `{"path":"note.txt"}`)
	if code != cli.ExitOK || !strings.Contains(out, "hello") {
		t.Fatalf("with %s: exit %d, %q\n%s", m[1], code, out, errOut)
	}

	fetch := wasmbuild.ForTest(t, "plugins/fetch")
	_, errOut, code = call(t, "", fetch, "fetch", `{"url":"https://example.com"}`)
	if code != cli.ExitUsage || !strings.Contains(errOut, "grant them with --host NAME") {
		t.Fatalf("fetch: exit %d:\n%s", code, errOut)
	}
}
