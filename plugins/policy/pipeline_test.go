package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk/sdktest"
)

func TestRewriteAndAskDecisions(t *testing.T) {
	const rules = `[
 {"name":"under-work","action":"rewrite","tools":["write"],"prefix":"/work"},
 {"name":"no-force","action":"rewrite","tools":["shell"],"strip":["--force","-f"]},
 {"name":"ask-push","action":"ask","tools":["shell"],"arg":"command","match":"^git push","question":"Push to the remote?"},
 {"name":"ask-rm","action":"ask","tools":["shell"],"arg":"command","match":"^rm "},
 {"name":"no-etc","action":"deny","path":["/work/etc/**"]}
]`
	for _, c := range []struct {
		tool, args           string
		block, ask, rewrites string
	}{
		{"write", `{"path":"notes.txt","content":"x"}`, "", "", `{"content":"x","path":"/work/notes.txt"}`},
		{"write", `{"path":"/work/a/../b.txt"}`, "", "", `{"path":"/work/b.txt"}`},
		{"write", `{"path":"/work/b.txt","n":1.50}`, "", "", ""},
		{"write", `{"path":"../../etc/passwd"}`, "Blocked by policy rule no-etc", "", ""},
		{"shell", `{"command":"git push --force origin  main"}`, "", "Push to the remote?", `{"command":"git push origin  main"}`},
		{"shell", `{"command":"git push origin"}`, "", "Push to the remote?", ""},
		{"shell", `{"command":"rm -f x"}`, "", `Allow shell {"command":"rm x"}? (policy rule ask-rm)`, `{"command":"rm x"}`},
		{"shell", `{"command":"--force=yes ls"}`, "", "", `{"command":"ls"}`},
		{"shell", `{"command":"ls"}`, "", "", ""},
	} {
		h := sdktest.Host{Config: map[string]string{"rules": rules}}
		out, err := h.BeforeToolCall(c.tool, rawJSON(c.args))
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.args, err)
		}
		if out.Reason != c.block || out.Block != (c.block != "") || out.Ask != c.ask || string(out.Arguments) != c.rewrites {
			t.Errorf("%s %s:\n got block=%q ask=%q args=%s\nwant block=%q ask=%q args=%s", c.tool, c.args, out.Reason, out.Ask, out.Arguments, c.block, c.ask, c.rewrites)
		}
	}
}

func TestBadRewriteConfig(t *testing.T) {
	for _, c := range []struct{ rules, want string }{
		{`[{"action":"rewrite"}]`, "a rewrite needs prefix or strip"},
		{`[{"action":"rewrite","prefix":"/w","strip":["-f"]}]`, "a rewrite needs prefix or strip"},
		{`[{"action":"rewrite","prefix":"work"}]`, `prefix "work" is not an absolute path`},
		{`[{"action":"deny","prefix":"/work"}]`, `prefix and strip are for action "rewrite"`},
		{`[{"action":"deny","question":"?"}]`, `question is for action "ask"`},
	} {
		h := sdktest.Host{Config: map[string]string{"rules": c.rules}}
		if _, err := h.Describe(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.rules, err, c.want)
		}
	}
}

// FuzzRewrites: a prefix rewrite always lands under the prefix with no
// ".." left; a strip leaves no stripped word and keeps the other words in
// order.
func FuzzRewrites(f *testing.F) {
	for _, s := range []string{"notes.txt", "../../etc/passwd", "/work/a", "/workshop/x", "git push --force -f x", "  -f  ", "a\t--force=1\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := underPrefix("/work", s)
		if p != "/work" && !strings.HasPrefix(p, "/work/") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") {
			t.Fatalf("underPrefix(%q) = %q", s, p)
		}
		out := stripFlags(s, []string{"--force", "-f"})
		var kept []string
		for _, w := range strings.Fields(s) {
			if w != "-f" && w != "--force" && !strings.HasPrefix(w, "--force=") {
				kept = append(kept, w)
			}
		}
		if got := strings.Fields(out); strings.Join(got, "\x00") != strings.Join(kept, "\x00") {
			t.Fatalf("stripFlags(%q) = %q", s, out)
		}
	})
}

// The rules through the real plugin in the real host's ToolRunner.

func policyHook(t *testing.T, rules string, o host.HookOptions) host.BeforeToolCallHook {
	p := plugintest.Load(t, "plugins/policy", runtime.Grants{Config: map[string]string{"rules": rules}})
	return host.WithBeforeOptions(p.BeforeToolCall(), o)
}

func writeTool(ran *[]string) host.Tool {
	return hosttest.Tool("write", `{"type":"object","properties":{"path":{"type":"string","not":{"pattern":"^/tmp/"}}},"required":["path"]}`,
		func(_ context.Context, _ string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
			*ran = append(*ran, string(args))
			return host.ToolResult{Content: host.Text("ok")}, nil
		})
}

func run(tr *host.ToolRunner, args string) *host.CallOutcome {
	return tr.Run(context.Background(), nil, nil, host.ToolCall{ID: "c1", Name: "write", Arguments: json.RawMessage(args)}, nil)
}

func TestPipelineThroughThePlugin(t *testing.T) {
	rewriter := policyHook(t, `[{"name":"into-etc","action":"rewrite","prefix":"/work/etc"}]`, host.HookOptions{Name: "rewriter"})
	prefixer := policyHook(t, `[{"name":"under-work","action":"rewrite","prefix":"/work"}]`, host.HookOptions{Name: "prefixer"})
	guard := func(gate bool) host.BeforeToolCallHook {
		return policyHook(t, `[{"name":"no-etc","action":"deny","path":["/work/etc/**"],"reason":"etc is off limits"}]`, host.HookOptions{Name: "guard", Gate: gate})
	}
	asker := policyHook(t, `[{"name":"ask","action":"ask","question":"Write it?"}]`, host.HookOptions{Name: "asker"})
	yes := host.ApproverFunc(func(context.Context, host.Question) (bool, error) { return true, nil })
	no := host.ApproverFunc(func(context.Context, host.Question) (bool, error) { return false, nil })

	t.Run("rewrite", func(t *testing.T) {
		var ran []string
		tr := &host.ToolRunner{Tools: []host.Tool{writeTool(&ran)}, BeforeToolCall: []host.BeforeToolCallHook{prefixer}}
		if out := run(tr, `{"path":"notes.txt"}`); out.IsError || len(ran) != 1 || ran[0] != `{"path":"/work/notes.txt"}` {
			t.Fatalf("%q %v", ran, out.Result.Content.TextOf())
		}
	})
	t.Run("a rewrite cannot slip past a gate", func(t *testing.T) {
		var ran []string
		tr := &host.ToolRunner{Tools: []host.Tool{writeTool(&ran)}, BeforeToolCall: []host.BeforeToolCallHook{guard(true), rewriter}}
		out := run(tr, `{"path":"/work/notes.txt"}`)
		if !out.IsError || len(ran) != 0 || out.Result.Content.TextOf() != "Blocked by policy rule no-etc: etc is off limits" {
			t.Fatalf("ran %q: %v %q", ran, out.IsError, out.Result.Content.TextOf())
		}
		// Not a gate, the same guard runs first and is fooled.
		tr.BeforeToolCall[0] = guard(false)
		if out := run(tr, `{"path":"/work/notes.txt"}`); out.IsError || len(ran) != 1 || ran[0] != `{"path":"/work/etc/work/notes.txt"}` {
			t.Fatalf("ran %q: %q", ran, out.Result.Content.TextOf())
		}
	})
	t.Run("a gate may not rewrite", func(t *testing.T) {
		var ran []string
		gate := policyHook(t, `[{"name":"under-work","action":"rewrite","prefix":"/work"}]`, host.HookOptions{Name: "gate", Gate: true})
		tr := &host.ToolRunner{Tools: []host.Tool{writeTool(&ran)}, BeforeToolCall: []host.BeforeToolCallHook{gate}}
		if out := run(tr, `{"path":"notes.txt"}`); !out.IsError || len(ran) != 0 || !strings.Contains(out.Result.Content.TextOf(), "is a gate and may not rewrite") {
			t.Fatalf("ran %q: %q", ran, out.Result.Content.TextOf())
		}
	})
	t.Run("an invalid rewrite names the hook", func(t *testing.T) {
		var ran []string
		outside := policyHook(t, `[{"name":"tmp","action":"rewrite","prefix":"/tmp"}]`, host.HookOptions{Name: "tmp"})
		tr := &host.ToolRunner{Tools: []host.Tool{writeTool(&ran)}, BeforeToolCall: []host.BeforeToolCallHook{outside}}
		if out := run(tr, `{"path":"/work/a"}`); !out.IsError || len(ran) != 0 || !strings.Contains(out.Result.Content.TextOf(), "rewritten by beforeToolCall hook tmp are not valid") {
			t.Fatalf("ran %q: %q", ran, out.Result.Content.TextOf())
		}
	})
	t.Run("ask", func(t *testing.T) {
		for _, c := range []struct {
			name     string
			approver host.Approver
			onAsk    host.Fallback
			runs     bool
		}{{"yes", yes, "", true}, {"no", no, "", false}, {"no approver", nil, "", false}, {"no approver, on_ask allow", nil, host.FallbackAllow, true}} {
			var ran []string
			h := asker
			if c.onAsk != "" {
				h = policyHook(t, `[{"name":"ask","action":"ask","question":"Write it?"}]`, host.HookOptions{Name: "asker", OnAsk: c.onAsk})
			}
			tr := &host.ToolRunner{Tools: []host.Tool{writeTool(&ran)}, BeforeToolCall: []host.BeforeToolCallHook{h}, Approver: c.approver}
			out := run(tr, `{"path":"/work/a"}`)
			if (len(ran) == 1) != c.runs || out.IsError == c.runs {
				t.Errorf("%s: ran %q: %q", c.name, ran, out.Result.Content.TextOf())
			}
			if !c.runs && !strings.Contains(out.Result.Content.TextOf(), "asker asked: Write it?") {
				t.Errorf("%s: %q", c.name, out.Result.Content.TextOf())
			}
		}
	})
}
