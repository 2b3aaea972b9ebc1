package cli_test

import (
	"context"
	"io"
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

// ARGS_JSON (or CALL_JSON) comes from stdin for a positional "-" (or
// --input -), and stdin is never read otherwise: no ARGS_JSON sends {}.
func TestCallArgsFromPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugins")
	}
	calc := wasmbuild.ForTest(t, "plugins/calc")
	piped := func(stdin string, args ...string) (string, string, int, int) {
		var out, errOut lockedBuffer
		in := &countingReader{r: strings.NewReader(stdin)}
		code := cli.Main(context.Background(), append([]string{"plugin", "call"}, args...), cli.Env{Stdin: in, Stdout: &out, Stderr: &errOut, Interrupt: make(chan struct{})})
		return out.String(), errOut.String(), code, in.reads
	}
	out, errOut, code, _ := piped(`{"expression":"6*7"}`, calc, "calc", "-")
	if code != cli.ExitOK || !strings.Contains(out, `"text": "42"`) {
		t.Fatalf("ARGS_JSON -: exit %d, %q\n%s", code, out, errOut)
	}
	out, errOut, code, reads := piped(`{"expression":"1+1"}`, calc, "calc", `{"expression":"2*3"}`)
	if code != cli.ExitOK || !strings.Contains(out, `"text": "6"`) || reads > 0 {
		t.Fatalf("ARGS_JSON given: stdin must stay unread (%d reads): exit %d, %q\n%s", reads, code, out, errOut)
	}
	_, errOut, _, reads = piped(`{"expression":"1+1"}`, calc, "calc")
	if reads > 0 || strings.Contains(errOut, "1+1") {
		t.Fatalf("no ARGS_JSON: stdin must stay unread (%d reads)\n%s", reads, errOut)
	}
	_, errOut, code, _ = piped(`{}`, "--input", "-", calc, "calc", "-")
	if code != cli.ExitUsage || !strings.Contains(errOut, "not both") {
		t.Fatalf("--input - and -: exit %d\n%s", code, errOut)
	}
	policy := wasmbuild.ForTest(t, "plugins/policy")
	out, errOut, code, reads = piped("not json", "--hook", "before", "--set", "default=allow", policy, "--tool", "write", "--args", `{"path":"/work/a"}`)
	if code != cli.ExitOK || out != "{}\n" || reads > 0 {
		t.Fatalf("--tool/--args: exit %d (%d reads), %q\n%s", code, reads, out, errOut)
	}
}

type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) { c.reads++; return c.r.Read(p) }
