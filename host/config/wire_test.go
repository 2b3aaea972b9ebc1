package config_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/internal/configtest"
	"github.com/wasmagent/wasmagent/internal/rtshare"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/internal/words"
)

// write makes a configuration in a temporary directory, with the calc and
// probe plugins and a script of turns, and returns its path.
func write(t *testing.T, body string, turns ...string) string {
	t.Helper()
	dir := t.TempDir()
	script := `{"turns":[` + strings.Join(turns, ",") + `]}`
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(script), 0o644)
	body = strings.NewReplacer(
		"CALC", wasmbuild.ForTest(t, "plugins/calc"),
		"PROBE", wasmbuild.ForTest(t, "internal/testplugins/probe"),
	).Replace(body)
	path := filepath.Join(dir, "agent.toml")
	head := "[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[runtime]\ncache_dir = \"" + wasmbuild.TestCacheDir() + "\"\n"
	os.WriteFile(path, []byte(head+body), 0o644)
	return path
}

// wire loads and wires path on the runtime this test process shares
// (internal/rtshare), so that calc and probe are compiled once, not once
// per test.
func wire(t *testing.T, path string) (*config.Setup, error) {
	t.Helper()
	f, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	configtest.NoPools(f)
	s, err := f.Wire(rtshare.Share(context.Background()), config.WireOptions{})
	if err == nil {
		t.Cleanup(s.Close)
	}
	return s, err
}

func toolCall(id, name, args string) string {
	return fmt.Sprintf(`{"content":[{"type":"toolCall","id":%q,"name":%q,"arguments":%s}]}`, id, name, args)
}

func TestWire(t *testing.T) {
	t.Setenv("WA_TEST_GREETING", "hej")
	path := write(t, `
[[tool]]
plugin = "CALC"
rename = { calc = "math" }
sequential = ["calc"]

[[tool]]
plugin = "PROBE"
name = "probe"
disable = ["state", "sleep", "hash", "fib", "spin", "panic", "crash", "fail", "big", "updates", "read", "write", "fsop", "ambient", "fetch"]
config = { greeting = { env = "WA_TEST_GREETING" } }

[[hook]]
plugin = "PROBE"
tools = ["ma*"]
`, toolCall("c1", "math", `{"expression":"6*7"}`), toolCall("c2", "config", `{"key":"greeting"}`), `{"content":"done"}`)
	s, err := wire(t, path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range s.Tools {
		names = append(names, fmt.Sprintf("%s:%s", tool.Name, tool.Mode))
	}
	if got := strings.Join(names, " "); got != "math:sequential echo: config:" {
		t.Fatalf("tools = %s", got)
	}
	if len(s.Hooks) != 2 || s.Hooks[0].Kind != "beforeToolCall" || s.Hooks[1].Kind != "afterToolCall" {
		t.Fatalf("hooks = %+v", s.Hooks)
	}
	a := host.NewAgent(s.Options)
	if err := a.PromptText(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var results []string
	for _, m := range a.State().Messages {
		if r, ok := m.(*host.ToolResultMessage); ok {
			results = append(results, r.Content.TextOf())
		}
	}
	// The after-hook applies to math only; config reads the environment.
	if fmt.Sprint(results) != "[42 (seen by probe) hej]" {
		t.Fatalf("results = %q", results)
	}
}

// A tool name offered twice says the two lines that end the clash, and
// each, written as said, does.
func TestDuplicateToolSaysTheFix(t *testing.T) {
	_, err := wire(t, write(t, "[[tool]]\nplugin = \"CALC\"\n[[tool]]\nplugin = \"CALC\"\n", `{"content":"x"}`))
	if err == nil || !strings.Contains(err.Error(), `here, rename it (rename = { calc = "calc_2" }) or leave it out (disable = ["calc"])`) {
		t.Fatalf("err = %v", err)
	}
	for _, fix := range []string{`rename = { calc = "calc_2" }`, `disable = ["calc"]`} {
		s, err := wire(t, write(t, "[[tool]]\nplugin = \"CALC\"\n[[tool]]\nplugin = \"CALC\"\n"+fix+"\n", `{"content":"x"}`))
		if err != nil {
			t.Fatalf("%s: %v", fix, err)
		}
		s.Close()
	}
}

// Two entries whose plugins share k tool names (k from 1 to 5; the same
// plugin listed twice shared all six of fs's) get one error, not k: it
// names every shared tool and the earlier entry's line, and each fix it
// prints, written as printed, ends the clash.
func TestToolClashOneErrorEach(t *testing.T) {
	dir := t.TempDir()
	for k := 1; k <= 5; k++ {
		var tools, names []string
		for j := range k {
			name := fmt.Sprintf("t%d", j)
			names = append(names, strconv.Quote(name))
			tools = append(tools, fmt.Sprintf(`{"name":%q,"description":"d","parameters":{"type":"object"}}`, name))
		}
		plugins := []string{filepath.Join(dir, fmt.Sprintf("a%d.wasm", k)), filepath.Join(dir, fmt.Sprintf("b%d.wasm", k))}
		for i, p := range plugins {
			// b has one tool more, of its own.
			all := append(append([]string{}, tools...), fmt.Sprintf(`{"name":"own%d","description":"d","parameters":{"type":"object"}}`, i))
			os.WriteFile(p, wasmbuild.ConstPlugin(map[string]string{"describe": `{"abi":1,"name":"p","tools":[` + strings.Join(all, ",") + `]}`, "execute": `{}`}), 0o644)
		}
		for _, second := range plugins {
			body := fmt.Sprintf("[[tool]]\nplugin = %q\n[[tool]]\nplugin = %q\n", plugins[0], second)
			_, err := wire(t, write(t, body, `{"content":"x"}`))
			if err == nil {
				t.Fatalf("k=%d: no error", k)
			}
			msg := err.Error()
			shared := names
			if second == plugins[0] {
				shared = append(append([]string{}, names...), `"own0"`)
			}
			if n := strings.Count(msg, "\n") + 1; n != 1 || !strings.Contains(msg, words.Named("tool", shared)+" ") || !strings.Contains(msg, "also offered by tool[0] (line 6)") {
				t.Fatalf("k=%d: want one error naming %s, got %d:\n%s", k, words.Named("tool", shared), n, msg)
			}
			if strings.Contains(msg, "the same plugin") != (second == plugins[0]) {
				t.Fatalf("k=%d: same plugin said wrongly:\n%s", k, msg)
			}
			fixes := regexp.MustCompile(`\((rename = \{ [^}]* \}|disable = \[[^\]]*\])\)`).FindAllStringSubmatch(msg, -1)
			if len(fixes) != 2 {
				t.Fatalf("k=%d: want a rename and a disable line:\n%s", k, msg)
			}
			for _, fix := range fixes {
				s, err := wire(t, write(t, body+fix[1]+"\n", `{"content":"x"}`))
				if err != nil {
					t.Fatalf("k=%d: the fix %s: %v", k, fix[1], err)
				}
				s.Close()
			}
		}
	}
}

func TestWireErrors(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"duplicate tool", "[[tool]]\nplugin = \"CALC\"\n[[tool]]\nplugin = \"CALC\"\n", `agent.toml:8: tool[1]: tool "calc" is also offered by tool[0] (line 6), the same plugin`},
		{"unknown tool disabled", "[[tool]]\nplugin = \"CALC\"\ndisable = [\"calculator\"]\n", `agent.toml:8: tool[0].disable: the plugin has no tool "calculator" (it has calc)`},
		{"tool plugin as hook", "[[hook]]\nplugin = \"CALC\"\n", "is not a hook"},
		{"missing env", "[[tool]]\nplugin = \"PROBE\"\nconfig = { greeting = { env = \"WA_TEST_UNSET_VARIABLE\" } }\n", "agent.toml:8: tool[0].config.greeting: the environment variable WA_TEST_UNSET_VARIABLE is not set"},
		{"bad pin", "[[tool]]\nplugin = \"CALC\"\nsha256 = \"" + strings.Repeat("0", 64) + "\"\n", "tool[0].sha256: plugin "},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := wire(t, write(t, c.body, `{"content":"x"}`))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v\nwant %q", err, c.want)
			}
		})
	}
}

// Without an API key the openai provider refuses to start, naming the
// variable, unless the server is a local one.
func TestOpenAIKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.toml")
	os.WriteFile(path, []byte("[model]\nprovider = \"openai\"\nname = \"gpt-4o-mini\"\napi_key_env = \"WA_TEST_NO_KEY\"\n"), 0o644)
	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Wire(context.Background(), config.WireOptions{}); err == nil || !strings.Contains(err.Error(), "agent.toml:4: model.api_key_env: the environment variable WA_TEST_NO_KEY is empty or not set") {
		t.Fatalf("err = %v", err)
	}
	f.Model.BaseURL = "http://localhost:11434/v1"
	s, err := f.Wire(context.Background(), config.WireOptions{})
	if err != nil {
		t.Fatalf("local server without a key: %v", err)
	}
	s.Close()
}

// model.headers are read from the environment when the model is wired:
// an unset variable is an error at the header's line, naming it.
func TestModelHeadersFromEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.toml")
	os.WriteFile(path, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\nbase_url = \"http://localhost:11434/v1?api-version=1\"\n\n[model.headers]\napi-key = \"WA_TEST_GATEWAY_KEY\"\n"), 0o644)
	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("WA_TEST_GATEWAY_KEY", "")
	if _, err := f.Wire(context.Background(), config.WireOptions{}); err == nil || !strings.Contains(err.Error(), "agent.toml:7: model.headers.api-key: the environment variable WA_TEST_GATEWAY_KEY is empty or not set") {
		t.Fatalf("err = %v", err)
	}
	t.Setenv("WA_TEST_GATEWAY_KEY", "k\r\nX-Evil: 1")
	if _, err := f.Wire(context.Background(), config.WireOptions{}); err == nil || strings.Contains(err.Error(), "Evil") || !strings.Contains(err.Error(), "model.headers.api-key") {
		t.Fatalf("a value with a line break: %v (and it must not be echoed)", err)
	}
	t.Setenv("WA_TEST_GATEWAY_KEY", "secret")
	s, err := f.Wire(context.Background(), config.WireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// The root agent.toml, the documented sample, loads and wires (with the
// plugins built for the test and the workspace in a temporary directory).
func TestRootSample(t *testing.T) {
	text, err := os.ReadFile("../../agent.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(text)
	for _, name := range []string{"fs", "calc", "policy", "fetch", "redact"} {
		s = strings.ReplaceAll(s, `"plugins/`+name+`/`+name+`.wasm"`, fmt.Sprintf("%q", wasmbuild.ForTest(t, "plugins/"+name)))
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.toml")
	os.WriteFile(path, []byte(s), 0o644)
	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Runtime.CacheDir = wasmbuild.TestCacheDir()
	configtest.NoPools(f)
	setup, err := f.Wire(rtshare.Share(context.Background()), config.WireOptions{NoModel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close()
	if len(setup.Tools) != 8 || len(setup.Hooks) != 2 {
		t.Fatalf("%d tools, %d hooks", len(setup.Tools), len(setup.Hooks))
	}
	// Every grant of the sample is one a plugin asked for (fetch asks for
	// whichever hosts the operator grants): no warning is noise.
	if len(setup.Warnings) != 0 {
		t.Fatalf("warnings: %q", setup.Warnings)
	}
}

func TestCredentialsFromEnvironment(t *testing.T) {
	body := "[[tool]]\nplugin = \"PROBE\"\n[tool.grants]\nhosts = [\"api.example.com\"]\ncredentials = [{ host = \"api.example.com\", header = \"Authorization\", env = \"WA_TEST_TOKEN\", prefix = \"Bearer \" }]\n"
	if _, err := wire(t, write(t, body, `{"content":"x"}`)); err == nil || !strings.Contains(err.Error(), "agent.toml:10: tool[0].grants.credentials: the environment variable WA_TEST_TOKEN") {
		t.Fatalf("unset: %v", err)
	}
	t.Setenv("WA_TEST_TOKEN", "abc")
	s, err := wire(t, write(t, body, `{"content":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Tools[0].Grants.Credentials; len(c) != 1 || c[0].Value != "Bearer abc" {
		t.Fatalf("credentials = %+v", c)
	}
	bad := "[[tool]]\nplugin = \"PROBE\"\n[tool.grants]\ncredentials = [{ host = \"api.example.com\", header = \"Authorization\", env = \"X\" }]\n"
	if _, err := wire(t, write(t, bad, `{"content":"x"}`)); err == nil || !strings.Contains(err.Error(), "api.example.com is not in grants.hosts") {
		t.Fatalf("ungranted: %v", err)
	}
}

// The per-call caps on host work reach the runtime's grants; a negative
// count is refused by key.
func TestHostWorkCapsWired(t *testing.T) {
	body := "[[tool]]\nplugin = \"PROBE\"\n[tool.grants]\nmax_updates = 3\nmax_update_bytes = \"1MiB\"\nmax_host_alloc = \"256MiB\"\nmax_log = \"4KiB\"\nmax_var_writes = \"2MiB\"\nmax_http_requests = 5\n"
	s, err := wire(t, write(t, body, `{"content":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	g := s.Tools[0].Grants
	if g.MaxUpdates != 3 || g.MaxUpdateBytes != 1<<20 || g.MaxHostAllocBytes != 256<<20 || g.MaxLogBytes != 4<<10 || g.MaxVarWriteBytes != 2<<20 || g.MaxHTTPRequests != 5 {
		t.Fatalf("grants %+v", g)
	}
	for _, key := range []string{"max_updates", "max_http_requests"} {
		_, err := wire(t, write(t, "[[tool]]\nplugin = \"PROBE\"\n[tool.grants]\n"+key+" = -1\n", `{"content":"x"}`))
		if err == nil || !strings.Contains(err.Error(), "tool[0].grants."+key+": -1 is negative") {
			t.Fatalf("%s = -1: %v", key, err)
		}
	}
}

// Problems found while wiring are all reported too, each at its line: a
// file tool with no directory (refused before any call), a tool name the
// plugin lacks, and a tool plugin used as a hook. The missing directory
// is reported at the tool (its grants have no dirs to point at).
func TestWireReportsEveryProblem(t *testing.T) {
	fs := wasmbuild.ForTest(t, "plugins/fs")
	body := "[[tool]]\nplugin = \"" + fs + "\"\n" + // lines 6-7
		"[[tool]]\nplugin = \"CALC\"\ndisable = [\"calculator\"]\n" + // lines 8-10
		"[[hook]]\nplugin = \"CALC\"\n" // lines 11-12
	_, err := wire(t, write(t, body, `{"content":"x"}`))
	want := []string{
		"agent.toml:6: tool[0].grants.dirs: plugin " + fs + ": the plugin needs grants it was not given: at least one directory (read-only)",
		`agent.toml:10: tool[1].disable: the plugin has no tool "calculator"`,
		"agent.toml:12: hook[0].plugin: " + wasmbuild.ForTest(t, "plugins/calc") + " is not a hook",
	}
	lines := strings.Split(fmt.Sprint(err), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("problem %d = %s\nwant it to contain %s", i, lines[i], w)
		}
	}
}

// [agent] max_turns bounds each run, not the Setup's life: a chat's
// prompts, and serve's sessions, run on one Setup's options. The count
// went on across runs, so once a chat had made max_turns turns, every
// later prompt stopped after its first (and sessions of serve shared,
// and raced on, one counter). Three runs of two turns each (a tool call,
// then the answer) under max_turns = 2 each end with their answer.
func TestMaxTurnsPerRun(t *testing.T) {
	var turns []string
	for _, answer := range []string{"one", "two", "three"} {
		turns = append(turns, toolCall("c-"+answer, "nope", `{}`), `{"content":"`+answer+`"}`)
	}
	s, err := wire(t, write(t, "[agent]\nmax_turns = 2\n", turns...))
	if err != nil {
		t.Fatal(err)
	}
	a := host.NewAgent(s.Options)
	for _, answer := range []string{"one", "two", "three"} {
		if err := a.PromptText(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
		msgs := a.State().Messages
		last, ok := msgs[len(msgs)-1].(*host.AssistantMessage)
		if !ok || last.Content.TextOf() != answer {
			t.Fatalf("run %q ended with %#v", answer, msgs[len(msgs)-1])
		}
	}
}

// The answers to calls past [agent] max_tool_calls and to arguments over
// max_argument_bytes say their counts in words that agree with them,
// whatever the cap: "at most 1 calls of one message run" and "at most 1
// bytes of arguments" were what a cap of one gave the model. (The calls
// are to no tool: the caps answer before the tool is looked for.)
func TestToolCallCapsInWords(t *testing.T) {
	for max := 1; max <= 2; max++ {
		var calls []string
		for i := range max + 1 {
			calls = append(calls, fmt.Sprintf(`{"type":"toolCall","id":"c%d","name":"nope","arguments":{"expression":"1"}}`, i))
		}
		s, err := wire(t, write(t, fmt.Sprintf("[agent]\nmax_tool_calls = %d\nmax_argument_bytes = %d\n", max, max), `{"content":[`+strings.Join(calls, ",")+`]}`, `{"content":"done"}`))
		if err != nil {
			t.Fatal(err)
		}
		a := host.NewAgent(s.Options)
		if err := a.PromptText(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
		run := " of one message run."
		if max == 1 {
			run = " of one message runs."
		}
		var results []string
		for _, m := range a.State().Messages {
			if r, ok := m.(*host.ToolResultMessage); ok {
				results = append(results, r.Content.TextOf())
			}
		}
		if want := "at most " + words.Count(max, "call") + run; len(results) != max+1 || !strings.Contains(results[max], want) {
			t.Errorf("max_tool_calls = %d: %q does not end with %q", max, results, want)
		}
		if want := "at most " + words.Count(max, "byte") + " of arguments per call"; len(results) == 0 || !strings.Contains(results[0], want) {
			t.Errorf("max_argument_bytes = %d: %q does not start with %q", max, results, want)
		}
	}
}
