package wasmtool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

func TestLoadDescribes(t *testing.T) {
	p := probe(t, runtime.Grants{})
	var names []string
	modes := map[string]host.ExecutionMode{}
	for _, tool := range p.Tools() {
		info := tool.Info()
		names = append(names, info.Name)
		modes[info.Name] = info.ExecutionMode
		if len(info.Parameters) == 0 || info.Description == "" {
			t.Errorf("tool %s has no schema or description", info.Name)
		}
	}
	if got := strings.Join(names, ","); got != "echo,state,sleep,hash,fib,spin,panic,crash,fail,big,updates,config,read,write,fsop,ambient,fetch" {
		t.Fatalf("tools = %s", got)
	}
	if modes["write"] != host.ExecutionSequential || modes["read"] != "" {
		t.Fatalf("modes = %v", modes)
	}
	if p.BeforeToolCall() == nil || p.AfterToolCall() == nil {
		t.Fatal("probe's hooks are missing")
	}
	if d := p.Description(); d.Name != "probe" || d.Version != "1.0.0" || d.ABI != 1 {
		t.Fatalf("description = %+v", d)
	}
}

// runAgent runs one prompt through an Agent whose scripted model makes the
// given calls, then says "done".
func runAgent(t *testing.T, opts host.AgentOptions, toolCalls ...host.ToolCall) ([]host.Message, *hosttest.Recorder, error) {
	t.Helper()
	m := scripted.Of(scripted.Turn{Content: calls(toolCalls...)}, scripted.Turn{Content: host.Text("done")})
	opts.Model = m
	a := host.NewAgent(opts)
	rec := hosttest.NewRecorder()
	a.Subscribe(func(ctx context.Context, e host.Event) error { return rec.Sink(ctx, e) })
	err := a.PromptText(context.Background(), "go")
	return a.State().Messages, rec, err
}

func TestToolsThroughTheLoop(t *testing.T) {
	p := probe(t, runtime.Grants{Config: map[string]string{"greeting": "hi"}})
	msgs, rec, err := runAgent(t, host.AgentOptions{Tools: p.Tools()},
		call("c1", "echo", `{"text":"one"}`),
		call("c2", "updates", `{"n":2}`),
		call("c3", "config", `{"key":"greeting"}`),
		call("c4", "fail", `{"message":"it broke"}`),
		call("c5", "echo", `{"text":["not a string"]}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"one", "2 updates", "hi", "error: it broke", "error: Validation failed for tool \"echo\""}
	got := results(msgs)
	if len(got) == 5 && strings.HasPrefix(got[4], want[4]) {
		got[4] = want[4]
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("results:\n got %q\nwant %q", got, want)
	}
	var updates []string
	for _, e := range rec.Events() {
		if u, ok := e.(host.ToolExecutionUpdateEvent); ok {
			b, _ := host.MarshalEvent(u)
			updates = append(updates, string(b))
		}
	}
	if len(updates) != 2 || !strings.Contains(updates[0], `"partialResult":{"content":[{"type":"text","text":"step 1"}]}`) {
		t.Fatalf("updates = %s", updates)
	}
}

func TestHooksThroughTheLoop(t *testing.T) {
	p := probe(t, runtime.Grants{})
	msgs, _, err := runAgent(t, host.AgentOptions{
		Tools:          p.Tools(),
		BeforeToolCall: []host.BeforeToolCallHook{p.BeforeToolCall()},
		AfterToolCall:  []host.AfterToolCallHook{p.AfterToolCall()},
	},
		call("c1", "echo", `{"text":"allowed"}`),
		call("c2", "fail", `{"message":"failed"}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	// The after hook sees successes and failures alike.
	if got := results(msgs); fmt.Sprint(got) != fmt.Sprint([]string{"allowed (seen by probe)", "error: failed (seen by probe)"}) {
		t.Fatalf("results = %q", got)
	}
}

func TestBeforeHookBlocks(t *testing.T) {
	p := probe(t, runtime.Grants{})
	guard := mustLoad(t, "internal/testplugins/probe", wasmtool.Options{Name: "guard"})
	open := host.ToolFunc{ToolInfo: host.ToolInfo{Name: "open", Parameters: []byte(`{"type":"object"}`)},
		Func: func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
			return host.ToolResult{Content: host.Text("opened")}, nil
		}}
	msgs, _, err := runAgent(t, host.AgentOptions{
		Tools:          append(p.Tools(), &open),
		BeforeToolCall: []host.BeforeToolCallHook{guard.BeforeToolCall()},
	},
		call("c1", "open", `{"block":false}`),
		call("c2", "open", `{"block":true}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := results(msgs); fmt.Sprint(got) != fmt.Sprint([]string{"opened", "error: blocked by probe: open"}) {
		t.Fatalf("results = %q", got)
	}
}

// A plugin that loops forever is stopped at its timeout; the call becomes
// an error result and the run goes on.
func TestTimeoutBecomesErrorResult(t *testing.T) {
	p := probe(t, runtime.Grants{Timeout: 200 * time.Millisecond})
	msgs, _, err := runAgent(t, host.AgentOptions{Tools: p.Tools()}, call("c1", "spin", `{}`), call("c2", "echo", `{"text":"next"}`))
	if err != nil {
		t.Fatal(err)
	}
	got := results(msgs)
	if len(got) != 2 || !strings.Contains(got[0], "did not finish within its timeout of 200ms") || got[1] != "next" {
		t.Fatalf("results = %q", got)
	}
	if last := msgs[len(msgs)-1].(*host.AssistantMessage); last.Content.TextOf() != "done" {
		t.Fatalf("the run did not go on: %v", last.Content)
	}
}

// Agent.Abort stops a plugin in an infinite loop (its timeout is a minute):
// the call ends as an error result and the run as aborted.
func TestAbortStopsPlugin(t *testing.T) {
	p := probe(t, runtime.Grants{Timeout: time.Minute})
	m := scripted.Of(scripted.Turn{Content: calls(call("c1", "spin", `{}`))}, scripted.Turn{Content: host.Text("done")})
	a := host.NewAgent(host.AgentOptions{Model: m, Tools: p.Tools()})
	started := make(chan struct{})
	var once sync.Once
	a.Subscribe(func(ctx context.Context, e host.Event) error {
		if _, ok := e.(host.ToolExecutionStartEvent); ok {
			once.Do(func() { close(started) })
		}
		return nil
	})
	done := make(chan error, 1)
	go func() { done <- a.PromptText(context.Background(), "go") }()
	<-started
	time.Sleep(50 * time.Millisecond)
	at := time.Now()
	a.Abort()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end after Abort")
	}
	t.Logf("the run ended %v after Abort", time.Since(at))
	got := results(a.State().Messages)
	if len(got) != 1 || !strings.Contains(got[0], "aborted") {
		t.Fatalf("results = %q", got)
	}
}

func TestCrashAndPanicAreErrorResults(t *testing.T) {
	p := probe(t, runtime.Grants{MaxOutputBytes: 4 << 10})
	msgs, _, err := runAgent(t, host.AgentOptions{Tools: p.Tools()},
		call("c1", "panic", `{}`),
		call("c2", "crash", `{}`),
		call("c3", "big", `{"bytes":8192}`),
		call("c4", "echo", `{"text":"alive"}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	got := results(msgs)
	for i, want := range []string{"panicked in execute: boom", "panic: crash on a goroutine", "over the plugin's limit of 4096", "alive"} {
		if !strings.Contains(got[i], want) {
			t.Errorf("result %d = %q, want %q", i, got[i], want)
		}
	}
}

func TestPinnedSHA256(t *testing.T) {
	path := wasmbuild.ForTest(t, "internal/testplugins/probe")
	p := probe(t, runtime.Grants{})
	if _, err := wasmtool.Load(context.Background(), rt(t), path, wasmtool.Options{SHA256: strings.ToUpper(p.SHA256())}); err != nil {
		t.Fatalf("the right pin: %v", err)
	}
	_, err := wasmtool.Load(context.Background(), rt(t), path, wasmtool.Options{SHA256: strings.Repeat("0", 64)})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "pins 0000") {
		t.Fatalf("err = %v", err)
	}
}

func TestNotAPlugin(t *testing.T) {
	_, err := wasmtool.LoadBytes(context.Background(), rt(t), "echo.wasm", wasmbuild.EchoPlugin(), wasmtool.Options{})
	if err == nil || !strings.Contains(err.Error(), `plugin echo.wasm: it does not export "describe"`) {
		t.Fatalf("err = %v", err)
	}
	// An Extism plugin's author is told what to add, and where it is
	// written down.
	if msg := err.Error(); !strings.Contains(msg, `"execute"`) || !strings.Contains(msg, "docs/abi.md") {
		t.Fatalf("the error does not say what a plugin exports: %v", err)
	}
	_, err = wasmtool.Load(context.Background(), rt(t), "/no/such.wasm", wasmtool.Options{})
	if err == nil || !strings.Contains(err.Error(), "/no/such.wasm") {
		t.Fatalf("err = %v", err)
	}
}
