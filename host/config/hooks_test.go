package config_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// [[hook]]'s gate, on_ask and the audit of rewrites and questions, through
// the real policy plugin.
func TestHookPipelineKeys(t *testing.T) {
	policy := wasmbuild.ForTest(t, "plugins/policy")
	path := write(t, `
[[tool]]
plugin = "PROBE"
disable = ["state", "sleep", "hash", "fib", "spin", "panic", "crash", "fail", "big", "updates", "read", "write", "fsop", "ambient", "fetch", "config"]

# Listed first, but a gate: it runs after the rewriter.
[[hook]]
plugin = "POLICY"
gate = true
[hook.config]
rules = [{ name = "no-secret", action = "deny", arg = "text", match = "^secret$" }]

[[hook]]
plugin = "POLICY"
on_ask = "allow"
[hook.config]
rules = [
  { name = "no-force", action = "rewrite", arg = "text", strip = ["--force"] },
  { name = "ask", action = "ask", arg = "text", match = "^ask", question = "Echo it?" },
]

[audit]
path = "audit.jsonl"
arguments = true
`, toolCall("c1", "echo", `{"text":"hello --force"}`), toolCall("c2", "echo", `{"text":"secret --force"}`), toolCall("c3", "echo", `{"text":"ask me"}`), `{"content":"done"}`)
	body, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.ReplaceAll(string(body), "POLICY", policy)), 0o644)
	s, err := wire(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Hooks) != 2 || !s.Hooks[0].Gate || s.Hooks[1].Gate {
		t.Fatalf("hooks %+v", s.Hooks)
	}
	a := host.NewAgent(s.Options)
	a.Subscribe(s.Audit())
	if err := a.PromptText(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var results []string
	for _, m := range a.State().Messages {
		if r, ok := m.(*host.ToolResultMessage); ok {
			results = append(results, r.Content.TextOf())
		}
	}
	if want := "[hello Blocked by policy rule no-secret ask me]"; fmt.Sprint(results) != want {
		t.Fatalf("results %q, want %s", results, want)
	}
	s.Close()
	log, err := os.ReadFile(filepath.Join(filepath.Dir(path), "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	records := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		var r struct {
			ToolCallID, Outcome string
			Hooks               []struct {
				Gate                                                      bool
				Decision, Question, Answer, ArgsBefore, ArgsAfter, Reason string
				Rewritten                                                 json.RawMessage
			}
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		d := r.Outcome
		for _, h := range r.Hooks {
			d += fmt.Sprintf(" gate=%v:%s", h.Gate, h.Decision)
			if h.Decision == "rewrite" {
				if !strings.HasPrefix(h.ArgsBefore, "sha256:") || len(h.ArgsAfter) != 71 || h.ArgsBefore == h.ArgsAfter {
					t.Errorf("digests %q %q", h.ArgsBefore, h.ArgsAfter)
				}
				d += string(h.Rewritten)
			}
			if h.Question != "" {
				d += " " + h.Question + "=" + h.Answer
			}
		}
		records[r.ToolCallID] = d
	}
	want := map[string]string{
		"c1": `ok gate=false:rewrite{"text":"hello"} gate=true:allow`,
		"c2": `blocked gate=false:rewrite{"text":"secret"} gate=true:block`,
		"c3": `ok gate=false:allow Echo it?=on_ask allow gate=true:allow`,
	}
	for id, w := range want {
		if records[id] != w {
			t.Errorf("%s: audit %q\nwant %q", id, records[id], w)
		}
	}
}

func TestHookKeyErrors(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"bad on_error", "[[hook]]\nplugin = \"PROBE\"\non_error = \"ignore\"\n", `hook[0].on_error: "ignore" is not "block" or "allow"`},
		{"bad on_ask", "[[hook]]\nplugin = \"PROBE\"\non_ask = \"yes\"\n", `hook[0].on_ask: "yes" is not "block" or "allow"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := wire(t, write(t, c.body, `{"content":"x"}`))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v\nwant %q", err, c.want)
			}
		})
	}
}

// on_error and on_timeout with a real plugin that fails and one that
// spins past its grant: blocked by default, let through when "allow".
func TestHookFallbacksThroughAPlugin(t *testing.T) {
	for _, c := range []struct{ keys, want string }{
		{"", "[probe hook failed on echo ERR]"},
		{"on_error = \"allow\"\non_timeout = \"allow\"\n", "[hook:fail (seen by probe) hook:spin (seen by probe)]"},
		{"on_error = \"allow\"\n", "[hook:fail (seen by probe) ERR]"},
		{"on_timeout = \"allow\"\n", "[probe hook failed on echo hook:spin (seen by probe)]"},
	} {
		t.Run(fmt.Sprintf("%q", c.keys), func(t *testing.T) {
			path := write(t, `
[[tool]]
plugin = "PROBE"
disable = ["state", "sleep", "hash", "fib", "spin", "panic", "crash", "fail", "big", "updates", "read", "write", "fsop", "ambient", "fetch", "config"]

[[hook]]
plugin = "PROBE"
`+c.keys+`
[hook.grants]
timeout = "300ms"
`, toolCall("c1", "echo", `{"text":"hook:fail"}`), toolCall("c2", "echo", `{"text":"hook:spin"}`), `{"content":"done"}`)
			s, err := wire(t, path)
			if err != nil {
				t.Fatal(err)
			}
			a := host.NewAgent(s.Options)
			if err := a.PromptText(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			var results []string
			for _, m := range a.State().Messages {
				if r, ok := m.(*host.ToolResultMessage); ok {
					text := r.Content.TextOf()
					if r.IsError && r.ToolCallID == "c2" {
						text = "ERR" // the timeout's wording is the runtime's
					}
					results = append(results, text)
				}
			}
			if fmt.Sprint(results) != c.want {
				t.Fatalf("results %q, want %s", results, c.want)
			}
		})
	}
}

// A hook's tools pattern that matches none of the tools is an error at its
// line and index, with the name it was likely meant as: a misspelt "write"
// would otherwise leave every write unguarded, silently. While a tool
// entry fails to load, its tools are unknown and no pattern is judged.
func TestHookToolsMatchNothing(t *testing.T) {
	dir := t.TempDir()
	calc, guard := filepath.Join(dir, "calc.wasm"), filepath.Join(dir, "guard.wasm")
	os.WriteFile(calc, wasmbuild.ConstPlugin(map[string]string{"describe": `{"abi":1,"name":"calc","tools":[{"name":"calc","description":"d","parameters":{"type":"object"}}]}`, "execute": `{}`}), 0o644)
	os.WriteFile(guard, wasmbuild.ConstPlugin(map[string]string{"describe": `{"abi":1,"name":"guard","hooks":["beforeToolCall"]}`, "before_tool_call": `{}`}), 0o644)
	_, err := wire(t, write(t, `
[[tool]]
plugin = "`+calc+`"

[[hook]]
plugin = "`+guard+`"
tools = ["clac", "c*", "zz?"]
`))
	got := problems(t, err)
	if e := got["hook[0].tools[0]"]; e == nil || e.Line != 12 || !strings.Contains(e.Msg, `"clac" matches none of the tools`) || !strings.Contains(e.Msg, `(did you mean "calc"?); the tools are calc`) {
		t.Errorf("a misspelt tool: %v", err)
	}
	if e := got["hook[0].tools[2]"]; e == nil || strings.Contains(e.Msg, "did you mean") {
		t.Errorf("a pattern near nothing: %v", err)
	}
	if len(got) != 2 {
		t.Errorf("%d problems, want 2 (c* matches calc): %v", len(got), err)
	}
	_, err = wire(t, write(t, "[[tool]]\nplugin = \""+calc+"\"\nsha256 = \""+strings.Repeat("0", 64)+"\"\n[[hook]]\nplugin = \""+guard+"\"\ntools = [\"calc\"]\n"))
	if got := problems(t, err); len(got) != 1 || got["tool[0].sha256"] == nil {
		t.Errorf("with a tool that did not load: %v", err)
	}
}
