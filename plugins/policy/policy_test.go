package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk/sdktest"
)

// The rules of the root agent.toml, and a few more.
const rules = `[
 {"name":"no-secrets","action":"deny","tools":["write","edit"],"path":["**/.env","**/*.pem"],"reason":"secrets stay out of reach"},
 {"name":"github-only","action":"allow","tools":["fetch"],"host":["api.github.com","*.githubusercontent.com"]},
 {"name":"no-other-fetch","action":"deny","tools":["fetch"],"reason":"fetch only from the host list"},
 {"name":"no-rm-rf","action":"deny","tools":["shell"],"arg":"command","match":"rm\\s+-rf"},
 {"name":"readonly-tools","action":"allow","tools":["read","ls","find","grep"]}
]`

func TestDecisions(t *testing.T) {
	for _, c := range []struct {
		def, tool, args string
		block           string // "" when allowed
	}{
		{"", "write", `{"path":".env","content":"x"}`, "Blocked by policy rule no-secrets: secrets stay out of reach"},
		{"", "write", `{"path":"config/prod/.env"}`, "Blocked by policy rule no-secrets: secrets stay out of reach"},
		{"", "edit", `{"path":"/work/keys/server.pem"}`, "Blocked by policy rule no-secrets: secrets stay out of reach"},
		{"", "write", `{"path":"a/../.env"}`, "Blocked by policy rule no-secrets: secrets stay out of reach"},
		{"", "write", `{"path":"notes/env.md"}`, ""},
		{"", "read", `{"path":".env"}`, ""},
		{"", "fetch", `{"url":"https://api.github.com/repos/x"}`, ""},
		{"", "fetch", `{"url":"https://raw.githubusercontent.com/x"}`, ""},
		{"", "fetch", `{"url":"https://api.github.com.evil.test/"}`, "Blocked by policy rule no-other-fetch: fetch only from the host list"},
		{"", "fetch", `{"url":"https://example.com/"}`, "Blocked by policy rule no-other-fetch: fetch only from the host list"},
		{"", "shell", `{"command":"rm -rf /"}`, "Blocked by policy rule no-rm-rf"},
		{"", "shell", `{"command":"ls"}`, ""},
		{"deny", "calc", `{}`, "Blocked by policy: no rule allows calc, and the default is deny"},
		{"deny", "grep", `{"pattern":"x"}`, ""},
	} {
		h := sdktest.Host{Config: map[string]string{"rules": rules, "default": c.def}}
		out, err := h.BeforeToolCall(c.tool, rawJSON(c.args))
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.args, err)
		}
		if out.Block != (c.block != "") || out.Reason != c.block {
			t.Errorf("%s %s (default %q): block=%v %q, want %q", c.tool, c.args, c.def, out.Block, out.Reason, c.block)
		}
	}
}

func TestNoRulesAllows(t *testing.T) {
	var h sdktest.Host
	if out, err := h.BeforeToolCall("write", rawJSON(`{"path":".env"}`)); err != nil || out.Block {
		t.Fatalf("%+v %v", out, err)
	}
}

func TestBadConfig(t *testing.T) {
	for _, c := range []struct{ rules, def, want string }{
		{`[{"action":"maybe"}]`, "", `rules[0]: action is "maybe"`},
		{`[{"name":"x","action":"deny","match":"("}]`, "", `rules[0] (x): bad match "("`},
		{`[{"action":"deny","path":["a["]}]`, "", "unclosed ["},
		{`[{"action":"deny","tool":["x"]}]`, "", `unknown field "tool"`},
		{`{}`, "", "cannot unmarshal object"},
		{``, "sometimes", `default is "sometimes"`},
	} {
		h := sdktest.Host{Config: map[string]string{"rules": c.rules, "default": c.def}}
		if _, err := h.Describe(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: describe err = %v, want %q", c.rules, err, c.want)
		}
	}
}

// In the real host the policy is a before hook, and a policy with a
// mistake refuses to load, saying which.
func TestThroughTheHost(t *testing.T) {
	p := plugintest.Load(t, "plugins/policy", runtime.Grants{Config: map[string]string{"rules": rules}})
	if p.BeforeToolCall() == nil || len(p.Tools()) != 0 {
		t.Fatal("policy is not a before hook")
	}
	_, err := plugintest.TryLoad(t, "plugins/policy", runtime.Grants{Config: map[string]string{"rules": `[{"action":"deny","match":"("}]`}})
	if err == nil || !strings.Contains(err.Error(), `configuration: policy: rules[0]: bad match "("`) {
		t.Fatalf("err = %v", err)
	}
}

func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }
