package assemblyscript_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/runtime"
)

// gateGrants load asprobe with its beforeToolCall hook registered by
// registerGate (the policy) rather than registerBeforeToolCall.
var gateGrants = runtime.Grants{Config: map[string]string{"gate": "1"}}

func before(t *testing.T, p *wasmtool.Plugin, args string) (*host.BeforeToolCallResult, error) {
	t.Helper()
	c := host.ToolCallContext{ToolCall: host.ToolCall{ID: "call_9", Name: "echo", Arguments: json.RawMessage(args)}, Args: json.RawMessage(args)}
	return p.BeforeToolCall().BeforeToolCall(context.Background(), &c)
}

// BeforeOutput.ask, .rewrite and both at once reach the host as the
// fields the Go SDK's sdk.Ask and sdk.Rewrite write; block still wins.
func TestBeforeAskAndRewrite(t *testing.T) {
	p := load(t, runtime.Grants{})
	for _, c := range []struct {
		args            string
		ask, rewrite    string
		block           bool
		reasonSubstring string
	}{
		{args: `{"ask":"may I? ünï"}`, ask: "may I? ünï"},
		{args: `{"rewrite":{"text":"new","n":[1,2.50,{"x":null}]}}`, rewrite: `{"text":"new","n":[1,2.50,{"x":null}]}`},
		{args: `{"ask":"and rewrite?","rewrite":{}}`, ask: "and rewrite?", rewrite: `{}`},
		{args: `{"block":true,"ask":"never asked"}`, block: true, reasonSubstring: "blocked echo (call_9)"},
		{args: `{"text":"plain"}`},
	} {
		r, err := before(t, p, c.args)
		if err != nil {
			t.Errorf("%s: %v", c.args, err)
			continue
		}
		if r.Ask != c.ask || string(r.Args) != c.rewrite || r.Block != c.block || !strings.Contains(r.Reason, c.reasonSubstring) {
			t.Errorf("%s: got block %v reason %q ask %q arguments %s", c.args, r.Block, r.Reason, r.Ask, r.Args)
		}
	}
}

// A rewrite that is not a JSON object fails the hook with a message that
// says so, in the SDK, before the host sees it.
func TestBeforeRewriteNotAnObject(t *testing.T) {
	p := load(t, runtime.Grants{})
	for _, args := range []string{`{"rewrite":"text"}`, `{"rewrite":[1]}`, `{"rewrite":null}`, `{"rewrite":7}`} {
		_, err := before(t, p, args)
		if err == nil || !strings.Contains(err.Error(), "the rewritten arguments must be a JSON object") {
			t.Errorf("%s: error %v", args, err)
		}
	}
}

type recorder struct {
	mu        sync.Mutex
	questions []host.Question
	answer    bool
}

func (r *recorder) Approve(_ context.Context, q host.Question) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.questions = append(r.questions, q)
	return r.answer, nil
}

// pipeline runs echo through the host's tool-call stages with asprobe's
// rewriting hook and its gate; gate says whether the gate is wired as its
// description asks (what agent.toml loading does) or as a plain hook.
func pipeline(t *testing.T, asGate bool, approver host.Approver, args string) *host.CallOutcome {
	t.Helper()
	rewriter := load(t, runtime.Grants{})
	gate := load(t, gateGrants)
	if !gate.Gate() || rewriter.Gate() {
		t.Fatalf("gate: the policy's description says %v, the rewriter's %v", gate.Gate(), rewriter.Gate())
	}
	tr := &host.ToolRunner{
		Tools: rewriter.Tools(),
		BeforeToolCall: []host.BeforeToolCallHook{
			// The gate comes first in the list: as a gate it still runs last.
			host.WithBeforeOptions(gate.BeforeToolCall(), host.HookOptions{Name: "policy", Gate: asGate && gate.Gate()}),
			host.WithBeforeOptions(rewriter.BeforeToolCall(), host.HookOptions{Name: "rewriter"}),
		},
		Approver: approver,
	}
	return tr.Run(context.Background(), nil, nil, host.ToolCall{ID: "call_1", Name: "echo", Arguments: json.RawMessage(args)}, nil)
}

// A gate declared with registerGate runs after the rewriting hook whatever
// the order of the list, so no rewrite leads around it; wired as a plain
// hook, the same policy is bypassed (the control).
func TestGateSeesTheFinalArguments(t *testing.T) {
	args := `{"text":"harmless","rewrite":{"text":"forbidden"}}`
	out := pipeline(t, true, nil, args)
	if !out.IsError || !strings.Contains(out.Result.Content.TextOf(), `the gate forbids "forbidden"`) {
		t.Fatalf("as a gate: %+v", out)
	}
	out = pipeline(t, false, nil, args)
	if out.IsError || out.Result.Content.TextOf() != "forbidden" {
		t.Fatalf("as a plain hook, before the rewriter: %+v", out)
	}
}

// A gate may block and ask but not rewrite: its rewrite blocks the call.
func TestGateMayNotRewrite(t *testing.T) {
	out := pipeline(t, true, nil, `{"text":"rewrite"}`)
	if !out.IsError || !strings.Contains(out.Result.Content.TextOf(), "policy is a gate and may not rewrite") {
		t.Fatalf("a gate's rewrite: %+v", out)
	}
	ok := &recorder{answer: true}
	if out := pipeline(t, true, ok, `{"text":"ask"}`); out.IsError || out.Result.Content.TextOf() != "ask" || len(ok.questions) != 1 || ok.questions[0].Text != "the gate asks" || ok.questions[0].Hook != "policy" {
		t.Fatalf("a gate's question: %+v, asked %+v", out, ok.questions)
	}
}

// A rewrite is validated again (the error names the hook); a question
// goes to the approver with the arguments before the rewrite, and the
// rewrite applies once approved.
func TestRewriteAndAskThroughTheHost(t *testing.T) {
	out := pipeline(t, true, nil, `{"text":"a","rewrite":{"text":"b"}}`)
	if out.IsError || out.Result.Content.TextOf() != "b" {
		t.Fatalf("rewrite: %+v", out)
	}
	out = pipeline(t, true, nil, `{"text":"a","rewrite":{"txt":"b"}}`)
	if !out.IsError || !strings.Contains(out.Result.Content.TextOf(), "rewriter") {
		t.Fatalf("a rewrite the schema refuses: %+v", out)
	}
	yes := &recorder{answer: true}
	out = pipeline(t, true, yes, `{"text":"a","ask":"ok?","rewrite":{"text":"c"}}`)
	if out.IsError || out.Result.Content.TextOf() != "c" || len(yes.questions) != 1 || yes.questions[0].Text != "ok?" || !strings.Contains(string(yes.questions[0].Args), `"text":"a"`) {
		t.Fatalf("approved: %+v, asked %+v", out, yes.questions)
	}
	no := &recorder{answer: false}
	if out = pipeline(t, true, no, `{"text":"a","ask":"ok?"}`); !out.IsError || len(no.questions) != 1 {
		t.Fatalf("declined: %+v, asked %+v", out, no.questions)
	}
	// No approver: on_ask decides, block by default.
	if out = pipeline(t, true, nil, `{"text":"a","ask":"ok?"}`); !out.IsError {
		t.Fatalf("no approver: %+v", out)
	}
}
