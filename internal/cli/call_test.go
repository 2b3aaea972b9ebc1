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

func call(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut lockedBuffer
	code = cli.Main(context.Background(), append([]string{"plugin", "call"}, args...), cli.Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Interrupt: make(chan struct{})})
	return out.String(), errOut.String(), code
}

// constPlugin writes a plugin whose exports answer fixed texts.
func constPlugin(t *testing.T, outputs map[string]string) string {
	path := filepath.Join(t.TempDir(), "p.wasm")
	if err := os.WriteFile(path, wasmbuild.ConstPlugin(outputs), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// --hook runs a plugin's hook on a sample call and prints its decision;
// the JSON has no HTML escapes.
func TestCallHook(t *testing.T) {
	p := constPlugin(t, map[string]string{
		"describe":         `{"abi":1,"name":"guard","hooks":["beforeToolCall","afterToolCall"]}`,
		"before_tool_call": `{"block":true,"reason":"no <b> & co"}`,
		"after_tool_call":  `{"content":[{"type":"text","text":"redacted <&>"}],"isError":false}`,
	})
	out, errOut, code := call(t, "", "--hook", "before", p, "--tool", "write", "--args", `{"path":"/etc/passwd"}`)
	if code != cli.ExitOK || out != "{\n  \"block\": true,\n  \"reason\": \"no <b> & co\"\n}\n" || !strings.Contains(errOut, "blocked: no <b> & co") {
		t.Fatalf("before: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	callJSON := `{"toolCall":{"id":"c9","name":"read","arguments":{"path":"a"}},"args":{"path":"a"},"result":{"content":[{"type":"text","text":"secret"}]},"isError":false}`
	out, errOut, code = call(t, callJSON, "--hook", "after", "--input", "-", p)
	if code != cli.ExitOK || !strings.Contains(out, `"text": "redacted <&>"`) || !strings.Contains(out, `"isError": false`) {
		t.Fatalf("after: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "replaces the content, sets isError to false") {
		t.Fatalf("after: stderr %q does not say what the answer does", errOut)
	}
	// An answer of nothing and an empty object differ (docs/abi.md), and
	// the verdict says how.
	for answer, want := range map[string]string{"null": "keeps the result as it is", "{}": "rebuilds the result unchanged"} {
		q := constPlugin(t, map[string]string{"describe": `{"abi":1,"name":"g","hooks":["afterToolCall"]}`, "after_tool_call": answer})
		if _, errOut, code := call(t, "", "--hook", "after", q, "--tool", "read", "--result", "x"); code != cli.ExitOK || !strings.Contains(errOut, want) {
			t.Errorf("after hook answering %s: exit %d, stderr %q; want %q", answer, code, errOut, want)
		}
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--hook", "before", p, `{"toolCall":{"name":"w"},"argz":{}}`}, `unknown field "argz"`},
		{[]string{"--hook", "before", p, `{"toolCall":{"id":"x"}}`}, "toolCall.name is missing"},
		{[]string{"--hook", "before", p, `{}`, "--tool", "w"}, "not both"},
		{[]string{"--hook", "before", p}, "needs CALL_JSON or --tool"},
		{[]string{"--hook", "before", p, "--tool", "w", "--result", "x"}, "go with --hook after"},
		{[]string{"--hook", "sideways", p}, "want before or after"},
		{[]string{p, "t", "--tool", "w"}, "go with --hook"},
		{[]string{"--hook", "before", p, "--tool", "w", "--args", "{nope"}, "--args is not valid JSON"},
	} {
		_, errOut, code := call(t, "", c.args...)
		if code != cli.ExitUsage || !strings.Contains(errOut, c.err) {
			t.Errorf("%q: exit %d, stderr %q; want %q", c.args, code, errOut, c.err)
		}
	}
	// A plugin without the hook says which hooks it has.
	only := constPlugin(t, map[string]string{"describe": `{"abi":1,"name":"g","hooks":["beforeToolCall"]}`, "before_tool_call": `{}`})
	if _, errOut, code := call(t, "", "--hook", "after", only, "--tool", "w"); code != cli.ExitUsage || !strings.Contains(errOut, "has no afterToolCall hook (it has hook beforeToolCall)") {
		t.Errorf("missing hook: exit %d, %q", code, errOut)
	}
	// Calling a hook as a tool points at --hook.
	if _, errOut, code := call(t, "", only, "beforeToolCall"); code != cli.ExitUsage || !strings.Contains(errOut, "--hook before|after") {
		t.Errorf("hook as a tool: exit %d, %q", code, errOut)
	}
	if out, errOut, code := call(t, "", "--hook", "before", only, "--tool", "w"); code != cli.ExitOK || out != "{}\n" || !strings.Contains(errOut, "allowed") {
		t.Errorf("allow: exit %d, %q, %q", code, out, errOut)
	}
	// The verdict line says what a hook that asks or rewrites decided.
	for out, verdict := range map[string]string{
		`{"ask":"sure?"}`:                                   "asks: sure?",
		`{"arguments":{"path":"/tmp/x"}}`:                   `rewrites the arguments to {"path":"/tmp/x"}`,
		`{"ask":"sure?","arguments":{"path":"/tmp/x"}}`:     "asks (then rewrites the arguments): sure?",
		`{"block":true,"reason":"no","ask":"ignored here"}`: "blocked: no",
	} {
		h := constPlugin(t, map[string]string{"describe": `{"abi":1,"name":"g","hooks":["beforeToolCall"]}`, "before_tool_call": out})
		if _, errOut, code := call(t, "", "--hook", "before", h, "--tool", "w"); code != cli.ExitOK || !strings.Contains(errOut, verdict) {
			t.Errorf("%s: exit %d, stderr %q; want %q", out, code, errOut, verdict)
		}
	}
}

// A tool's ARGS_JSON comes from the argument, --input FILE or --input -;
// --config is refused with the flag to use instead.
func TestCallToolInput(t *testing.T) {
	p := constPlugin(t, map[string]string{
		"describe": `{"abi":1,"name":"c","tools":[{"name":"echo","description":"e","parameters":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}]}`,
		"execute":  `{"content":[{"type":"text","text":"<ok> & done"}]}`,
	})
	file := filepath.Join(t.TempDir(), "args.json")
	os.WriteFile(file, []byte(`{"x":"1"}`), 0o644)
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{p, "echo", `{"x":"1"}`}},
		{`{"x":"1"}`, []string{"--input", "-", p, "echo"}},
		{"", []string{p, "echo", "--input", file}},
	} {
		out, errOut, code := call(t, c.stdin, c.args...)
		if code != cli.ExitOK || !strings.Contains(out, `"text": "<ok> & done"`) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", c.args, code, out, errOut)
		}
	}
	// A tool's name mistyped, or left out before the arguments.
	if _, errOut, code := call(t, "", p, "ecoh", `{"x":"1"}`); code != cli.ExitUsage || !strings.Contains(errOut, `has no tool "ecoh" (did you mean "echo"?); it has tool echo`) {
		t.Errorf("typo: exit %d, %q", code, errOut)
	}
	if _, errOut, code := call(t, "", p, `{"x":"1"}`); code != cli.ExitUsage || !strings.Contains(errOut, "TOOL is missing before the arguments") {
		t.Errorf("no TOOL: exit %d, %q", code, errOut)
	}
	if _, errOut, code := call(t, "", p, "echo", `{}`); code != cli.ExitFailed || !strings.Contains(errOut, "x") {
		t.Errorf("schema: exit %d, %q", code, errOut)
	}
	if _, errOut, code := call(t, "", "--input", file, p, "echo", `{"x":"1"}`); code != cli.ExitUsage || !strings.Contains(errOut, "not both") {
		t.Errorf("both: exit %d, %q", code, errOut)
	}
	if _, errOut, code := call(t, "", "--config", "k=v", p, "echo"); code != cli.ExitUsage || !strings.Contains(errOut, "--set KEY=VALUE") {
		t.Errorf("--config: exit %d, %q", code, errOut)
	}
	if _, errOut, code := call(t, "", "--log-level", "loud", p, "echo"); code != cli.ExitUsage || !strings.Contains(errOut, "debug, info, warn or error") {
		t.Errorf("--log-level: exit %d, %q", code, errOut)
	}
}

// The real policy plugin, configured with --set, judges sample calls made
// with --tool/--args and with the host's JSON; the fs plugin reads through
// a relative --dir.
func TestCallRealPlugins(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugins")
	}
	policy := wasmbuild.ForTest(t, "plugins/policy")
	rules := `rules=[{"name":"no-env","action":"deny","path":["**/.env"],"reason":"secrets"}]`
	out, errOut, code := call(t, "", "--hook", "before", "--set", rules, "--set", "default=allow", policy, "--tool", "write", "--args", `{"path":"/work/.env","content":"x"}`)
	if code != cli.ExitOK || !strings.Contains(out, `"block": true`) || !strings.Contains(out, "secrets") {
		t.Fatalf("deny: exit %d, %q, %q", code, out, errOut)
	}
	out, errOut, code = call(t, "", "--hook", "before", "--set", rules, policy, `{"toolCall":{"id":"c1","name":"write","arguments":{"path":"/work/a.txt"}},"args":{"path":"/work/a.txt","content":"x"}}`)
	if code != cli.ExitOK || out != "{}\n" {
		t.Fatalf("allow: exit %d, %q, %q", code, out, errOut)
	}

	fs := wasmbuild.ForTest(t, "plugins/fs")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "note.txt"), []byte("hello <world>\n"), 0o644)
	t.Chdir(dir)
	out, errOut, code = call(t, "", "--dir", ".:/data", "--set", "roots=/data", fs, "read", `{"path":"/data/note.txt"}`)
	if code != cli.ExitOK || !strings.Contains(out, "hello <world>") {
		t.Fatalf("--dir .:/data: exit %d, %q, %q", code, out, errOut)
	}
}

// What an "extism call" user types is answered with the flag meant here;
// a flag value that does not parse says what it must be; an argument that
// is not JSON says why, quoted printable, and from which file — and a Wasm
// module read as the arguments (--input took the plugin as its FILE) says so.
func TestCallSaysWhatToWrite(t *testing.T) {
	p := constPlugin(t, map[string]string{"describe": `{"abi":1,"name":"g","hooks":["beforeToolCall"]}`, "before_tool_call": `{}`})
	escaped := filepath.Join(t.TempDir(), "args.json")
	os.WriteFile(escaped, []byte("\x1b[31m{"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--allow-host", "example.com", p, "t"}, "--allow-host is a flag of extism call: a host is granted with --host NAME"},
		{[]string{"--allow-path", ".:/work", p, "t"}, "--dir HOST:GUEST"},
		{[]string{"--wasi", p, "t"}, "leave --wasi out"},
		{[]string{"--memory-max=3", p, "t"}, "--memory-mib N"},
		{[]string{"--set-config", `{"a":"b"}`, p, "t"}, "--set KEY=VALUE"},
		{[]string{"--config", "k=v", p, "t"}, "--set KEY=VALUE"},
		{[]string{"--timeout", "100", p, "t"}, `invalid value "100" for --timeout: want a duration with its unit: 500ms, 30s, 2m`},
		{[]string{"--memory-mib", "lots", p, "t"}, `for --memory-mib: want a whole number`},
		{[]string{"--input", p, "t", "{}"}, "is a Wasm module, not JSON: --input FILE takes the file to read ARGS_JSON from"},
		{[]string{"--input", p, "t"}, "--input took " + p + " as its FILE"},
		{[]string{"--hook", "after", "--input", p}, "--input took " + p + " as its FILE"},
		{[]string{"--input", escaped, p, "t"}, `ARGS_JSON (from --input ` + escaped + `) is not valid JSON (invalid character '\x1b' looking for beginning of value): "\x1b[31m{"`},
		{[]string{p, "t", "{bad"}, `ARGS_JSON is not valid JSON (invalid character 'b' looking for beginning of object key string): "{bad"`},
		{[]string{"--hook", "before", "--input", p, "x"}, "CALL_JSON (from --input " + p + ") is a Wasm module"},
		// extism call's --input is the data; here it names a file.
		{[]string{p, "t", "--input", `{"x":"1"}`}, `--input takes a FILE to read ARGS_JSON from (or - for stdin), not the JSON itself as extism call's --input does: give the JSON as the last argument, '{"x":"1"}'`},
		{[]string{"--hook", "before", "--input", `[1]`, p}, `--input takes a FILE to read CALL_JSON from`},
	} {
		_, errOut, code := call(t, "", c.args...)
		if code != cli.ExitUsage || !strings.Contains(errOut, c.want) || strings.ContainsAny(errOut, "\x00\x1b") {
			t.Errorf("%q: exit %d, stderr %q\nwant %q", c.args, code, errOut, c.want)
		}
	}
}
