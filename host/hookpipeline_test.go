package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// The hook pipeline's rules (docs/hooks.md), one test each, with Go hooks.
// plugins/policy tests the same rules through the real Wasm plugin.

const pathSchema = `{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer"}},"required":["path"]}`

// seen records the arguments the tool ran with.
func seenTool(got *[]string) host.Tool {
	var mu sync.Mutex
	return hosttest.Tool("write", pathSchema, func(_ context.Context, _ string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		mu.Lock()
		defer mu.Unlock()
		*got = append(*got, string(args))
		return host.ToolResult{Content: host.Text("wrote " + string(args))}, nil
	})
}

type beforeFunc = func(context.Context, *host.ToolCallContext) (*host.BeforeToolCallResult, error)

func hook(name string, gate bool, f beforeFunc) host.BeforeToolCallHook {
	return host.WithBeforeOptions(host.BeforeToolCallFunc(f), host.HookOptions{Name: name, Gate: gate})
}

func rewriteTo(args string) beforeFunc {
	return func(context.Context, *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
		return &host.BeforeToolCallResult{Args: json.RawMessage(args)}, nil
	}
}

// blockIf blocks when the arguments it sees contain s.
func blockIf(s string, saw *[]string) beforeFunc {
	return func(_ context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
		if saw != nil {
			*saw = append(*saw, string(c.Args))
		}
		if strings.Contains(string(c.Args), s) {
			return &host.BeforeToolCallResult{Block: true, Reason: "no " + s}, nil
		}
		return nil, nil
	}
}

func runOne(t *testing.T, tr *host.ToolRunner, args string) *host.CallOutcome {
	t.Helper()
	return tr.Run(context.Background(), nil, nil, host.ToolCall{ID: "c1", Name: "write", Arguments: json.RawMessage(args)}, nil)
}

func TestRewriteIsSeenByTheNextHookAndTheTool(t *testing.T) {
	var ran, saw []string
	tr := &host.ToolRunner{Tools: []host.Tool{seenTool(&ran)}, BeforeToolCall: []host.BeforeToolCallHook{
		hook("prefix", false, rewriteTo(`{"path":"/work/a.txt","n":"7"}`)),
		hook("watch", false, blockIf("nothing", &saw)),
	}}
	out := runOne(t, tr, `{"path":"a.txt"}`)
	if out.IsError {
		t.Fatalf("error: %s", out.Result.Content.TextOf())
	}
	// Coerced again after the rewrite: "7" became 7; the hook's key order
	// is kept.
	want := `{"path":"/work/a.txt","n":7}`
	if len(saw) != 1 || saw[0] != want || len(ran) != 1 || ran[0] != want {
		t.Fatalf("next hook saw %q, tool ran with %q; want %s", saw, ran, want)
	}
}

func TestInvalidRewriteNamesTheHook(t *testing.T) {
	var ran []string
	tr := &host.ToolRunner{Tools: []host.Tool{seenTool(&ran)}, BeforeToolCall: []host.BeforeToolCallHook{
		hook("mangle", false, rewriteTo(`{"n":1}`)),
	}}
	out := runOne(t, tr, `{"path":"a.txt"}`)
	text := out.Result.Content.TextOf()
	if !out.IsError || len(ran) != 0 || !strings.Contains(text, "rewritten by beforeToolCall hook mangle are not valid") || !strings.Contains(text, `Validation failed for tool "write"`) {
		t.Fatalf("isError=%v ran=%q text=%q", out.IsError, ran, text)
	}
}

// A gate listed first still runs after every rewriting hook and sees the
// final arguments: a rewrite cannot slip past it.
func TestRewriteCannotSlipPastAGate(t *testing.T) {
	var ran, saw []string
	tr := &host.ToolRunner{Tools: []host.Tool{seenTool(&ran)}, BeforeToolCall: []host.BeforeToolCallHook{
		hook("guard", true, blockIf(".env", &saw)),
		hook("redirect", false, rewriteTo(`{"path":"/work/.env"}`)),
	}}
	out := runOne(t, tr, `{"path":"notes.txt"}`)
	if !out.IsError || out.Result.Content.TextOf() != "no .env" || len(ran) != 0 {
		t.Fatalf("isError=%v text=%q ran=%q", out.IsError, out.Result.Content.TextOf(), ran)
	}
	if len(saw) != 1 || saw[0] != `{"path":"/work/.env"}` {
		t.Fatalf("the gate saw %q", saw)
	}
	// The same hook without gate = true runs in its place and is fooled:
	// the point of gates.
	tr.BeforeToolCall[0] = hook("guard", false, blockIf(".env", nil))
	if out := runOne(t, tr, `{"path":"notes.txt"}`); out.IsError {
		t.Fatalf("a non-gate first hook blocked: %s", out.Result.Content.TextOf())
	}
}

func TestGateMayNotRewrite(t *testing.T) {
	var ran []string
	tr := &host.ToolRunner{Tools: []host.Tool{seenTool(&ran)}, BeforeToolCall: []host.BeforeToolCallHook{
		hook("sneaky", true, rewriteTo(`{"path":"b"}`)),
	}}
	out := runOne(t, tr, `{"path":"a"}`)
	if !out.IsError || len(ran) != 0 || out.Result.Content.TextOf() != "beforeToolCall hook sneaky is a gate and may not rewrite the arguments" {
		t.Fatalf("isError=%v ran=%q text=%q", out.IsError, ran, out.Result.Content.TextOf())
	}
}

func asks(q string) beforeFunc {
	return func(context.Context, *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
		return &host.BeforeToolCallResult{Ask: q}, nil
	}
}

func TestAsk(t *testing.T) {
	yes := host.ApproverFunc(func(context.Context, host.Question) (bool, error) { return true, nil })
	no := host.ApproverFunc(func(context.Context, host.Question) (bool, error) { return false, nil })
	silent := host.ApproverFunc(func(ctx context.Context, _ host.Question) (bool, error) { <-ctx.Done(); return true, nil })
	failing := host.ApproverFunc(func(context.Context, host.Question) (bool, error) { return false, errors.New("tty closed") })
	panicking := host.ApproverFunc(func(context.Context, host.Question) (bool, error) { panic("boom") })
	for _, c := range []struct {
		name     string
		approver host.Approver
		onAsk    host.Fallback
		runs     bool
		answer   string
	}{
		{"yes", yes, "", true, "yes"},
		{"no", no, host.FallbackAllow, false, "no"},
		{"no approver blocks by default", nil, "", false, "on_ask block"},
		{"no approver, on_ask allow", nil, host.FallbackAllow, true, "on_ask allow"},
		{"unanswered blocks", silent, host.FallbackAllow, false, "no answer: timed out"},
		{"approver error blocks", failing, "", false, "no answer: tty closed"},
		{"approver panic blocks", panicking, "", false, "no answer: approver panicked: boom"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ran []string
			var reports []host.HookReport
			tr := &host.ToolRunner{
				Tools:           []host.Tool{seenTool(&ran)},
				BeforeToolCall:  []host.BeforeToolCallHook{host.WithBeforeOptions(host.BeforeToolCallFunc(asks("Write a.txt?")), host.HookOptions{Name: "ask", OnAsk: c.onAsk})},
				Approver:        c.approver,
				ApprovalTimeout: 20 * time.Millisecond,
				OnHook:          func(r host.HookReport) { reports = append(reports, r) },
			}
			out := runOne(t, tr, `{"path":"a.txt"}`)
			if (len(ran) == 1) != c.runs || out.IsError == c.runs {
				t.Fatalf("ran=%q isError=%v text=%q", ran, out.IsError, out.Result.Content.TextOf())
			}
			if len(reports) != 1 || reports[0].Question != "Write a.txt?" || reports[0].Answer != c.answer {
				t.Fatalf("reports %+v, want answer %q", reports, c.answer)
			}
			if !c.runs && !strings.Contains(out.Result.Content.TextOf(), "ask asked: Write a.txt?; answer: "+c.answer) {
				t.Fatalf("text %q", out.Result.Content.TextOf())
			}
		})
	}
}

// The approver is shown the arguments the call would run with: after the
// rewrites before it.
func TestAskSeesRewrittenArguments(t *testing.T) {
	var ran []string
	var asked host.Question
	tr := &host.ToolRunner{Tools: []host.Tool{seenTool(&ran)}, BeforeToolCall: []host.BeforeToolCallHook{
		hook("prefix", false, rewriteTo(`{"path":"/work/a"}`)),
		hook("asker", true, asks("ok?")),
	}, Approver: host.ApproverFunc(func(_ context.Context, q host.Question) (bool, error) { asked = q; return true, nil })}
	if out := runOne(t, tr, `{"path":"a"}`); out.IsError {
		t.Fatal(out.Result.Content.TextOf())
	}
	if string(asked.Args) != `{"path":"/work/a"}` || asked.Hook != "asker" || string(asked.ToolCall.Arguments) != `{"path":"a"}` {
		t.Fatalf("asked %+v", asked)
	}
}

func TestFallbacks(t *testing.T) {
	fail := func(err error) beforeFunc {
		return func(context.Context, *host.ToolCallContext) (*host.BeforeToolCallResult, error) { return nil, err }
	}
	timeout := fmt.Errorf("plugin slow: %w", context.DeadlineExceeded)
	for _, c := range []struct {
		name string
		f    beforeFunc
		o    host.HookOptions
		runs bool
	}{
		{"error blocks by default", fail(errors.New("crashed")), host.HookOptions{}, false},
		{"on_error allow", fail(errors.New("crashed")), host.HookOptions{OnError: host.FallbackAllow}, true},
		{"on_error allow does not cover timeouts", fail(timeout), host.HookOptions{OnError: host.FallbackAllow}, false},
		{"on_timeout allow", fail(timeout), host.HookOptions{OnTimeout: host.FallbackAllow}, true},
		{"on_timeout allow does not cover errors", fail(errors.New("crashed")), host.HookOptions{OnTimeout: host.FallbackAllow}, false},
		{"panic with on_error allow", func(context.Context, *host.ToolCallContext) (*host.BeforeToolCallResult, error) { panic("x") }, host.HookOptions{OnError: host.FallbackAllow}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ran []string
			var reports []host.HookReport
			tr := &host.ToolRunner{Tools: []host.Tool{seenTool(&ran)},
				BeforeToolCall: []host.BeforeToolCallHook{host.WithBeforeOptions(host.BeforeToolCallFunc(c.f), c.o)},
				OnHook:         func(r host.HookReport) { reports = append(reports, r) }}
			out := runOne(t, tr, `{"path":"a"}`)
			if (len(ran) == 1) != c.runs || out.IsError == c.runs {
				t.Fatalf("ran=%q isError=%v %q", ran, out.IsError, out.Result.Content.TextOf())
			}
			if len(reports) != 1 || reports[0].Decision != "error" || reports[0].Fallback == "" {
				t.Fatalf("reports %+v", reports)
			}
		})
	}
}

func TestAfterHookOnErrorAllowKeepsTheResult(t *testing.T) {
	var ran []string
	failing := host.AfterToolCallFunc(func(context.Context, *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
		return nil, errors.New("log full")
	})
	tr := &host.ToolRunner{Tools: []host.Tool{seenTool(&ran)}, AfterToolCall: []host.AfterToolCallHook{host.WithAfterOptions(failing, host.HookOptions{OnError: host.FallbackAllow})}}
	if out := runOne(t, tr, `{"path":"a"}`); out.IsError || out.Result.Content.TextOf() != `wrote {"path":"a"}` {
		t.Fatalf("%v %q", out.IsError, out.Result.Content.TextOf())
	}
	tr.AfterToolCall = []host.AfterToolCallHook{failing}
	if out := runOne(t, tr, `{"path":"a"}`); !out.IsError || out.Result.Content.TextOf() != "log full" {
		t.Fatalf("%v %q", out.IsError, out.Result.Content.TextOf())
	}
}

func TestHookToolsFilter(t *testing.T) {
	var ran []string
	tr := &host.ToolRunner{Tools: []host.Tool{seenTool(&ran)}, BeforeToolCall: []host.BeforeToolCallHook{
		host.WithBeforeOptions(host.BeforeToolCallFunc(blockIf("a", nil)), host.HookOptions{Tools: func(n string) bool { return n == "other" }}),
	}}
	if out := runOne(t, tr, `{"path":"a"}`); out.IsError {
		t.Fatal("a hook for another tool ran")
	}
}

// In the loop: tool_execution_start keeps the model's arguments; the
// tool and the after hooks see what ran.
func TestRewriteInTheLoop(t *testing.T) {
	var ran []string
	var afterSaw string
	lr := newLoopRun(t, []host.Tool{seenTool(&ran)}, calls(call("c1", "write", `{"path":"a"}`)), say("ok"))
	lr.cfg.BeforeToolCall = []host.BeforeToolCallHook{hook("prefix", false, rewriteTo(`{"path":"/work/a"}`))}
	lr.cfg.AfterToolCall = []host.AfterToolCallHook{host.AfterToolCallFunc(func(_ context.Context, c *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
		afterSaw = string(c.Args)
		return nil, nil
	})}
	lr.run(user("go"))
	var start host.ToolExecutionStartEvent
	for _, e := range lr.rec.Events() {
		if s, ok := e.(host.ToolExecutionStartEvent); ok {
			start = s
		}
	}
	if string(start.Args) != `{"path":"a"}` || afterSaw != `{"path":"/work/a"}` || len(ran) != 1 || ran[0] != `{"path":"/work/a"}` {
		t.Fatalf("start %s, after hook saw %s, tool ran %q", start.Args, afterSaw, ran)
	}
	if text, _ := resultText(t, lr.rec, "c1"); text != `wrote {"path":"/work/a"}` {
		t.Fatalf("result %q", text)
	}
}
