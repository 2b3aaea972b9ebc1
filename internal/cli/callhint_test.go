package cli_test

import (
	"context"
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

// ARGS_JSON (or CALL_JSON) comes from a piped stdin when neither it nor
// --input is given, as run reads a piped prompt; --tool/--args for a hook
// keep stdin unread.
func TestCallArgsFromPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugins")
	}
	calc := wasmbuild.ForTest(t, "plugins/calc")
	piped := func(stdin string, args ...string) (string, string, int) {
		var out, errOut lockedBuffer
		code := cli.Main(context.Background(), append([]string{"plugin", "call"}, args...), cli.Env{Stdin: strings.NewReader(stdin), StdinPiped: true, Stdout: &out, Stderr: &errOut, Interrupt: make(chan struct{})})
		return out.String(), errOut.String(), code
	}
	out, errOut, code := piped(`{"expression":"6*7"}`, calc, "calc")
	if code != cli.ExitOK || !strings.Contains(out, `"text": "42"`) {
		t.Fatalf("piped ARGS_JSON: exit %d, %q\n%s", code, out, errOut)
	}
	out, errOut, code = piped(`{"expression":"1+1"}`, calc, "calc", `{"expression":"2*3"}`)
	if code != cli.ExitOK || !strings.Contains(out, `"text": "6"`) {
		t.Fatalf("ARGS_JSON given: stdin must stay unread: exit %d, %q\n%s", code, out, errOut)
	}
	policy := wasmbuild.ForTest(t, "plugins/policy")
	out, errOut, code = piped("not json", "--hook", "before", "--set", "default=allow", policy, "--tool", "write", "--args", `{"path":"/work/a"}`)
	if code != cli.ExitOK || out != "{}\n" {
		t.Fatalf("--tool/--args with a pipe: exit %d, %q\n%s", code, out, errOut)
	}
}
