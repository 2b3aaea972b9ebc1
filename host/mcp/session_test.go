package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/mcp"
)

func newServer(t testing.TB, r *host.ToolRunner) *mcp.Server {
	t.Helper()
	srv, err := mcp.New(mcp.Options{Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// Parallel calls of a session run together: two calls that each wait
// for the other to start can only finish if they overlap. A sequential
// tool never runs beside another call of its session.
func TestParallelAndSequential(t *testing.T) {
	var arrived sync.WaitGroup
	arrived.Add(2)
	meet := hosttest.Tool("meet", "", func(ctx context.Context, _ string, _ json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		arrived.Done()
		arrived.Wait() // both calls must be running at once
		return host.ToolResult{Content: host.Text("met")}, nil
	})
	var running, most atomic.Int32
	track := func(name string) *host.ToolFunc {
		return hosttest.Tool(name, "", func(ctx context.Context, _ string, _ json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
			n := running.Add(1)
			defer running.Add(-1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			for range 1000 { // give a wrongly admitted neighbour time to show
				if running.Load() > 1 && most.Load() < running.Load() {
					most.Store(running.Load())
				}
			}
			return host.ToolResult{Content: host.Text("ok")}, nil
		})
	}
	seq := hosttest.Sequential(track("seq"))
	par := track("par")
	cs := connect(t, newServer(t, &host.ToolRunner{Tools: []host.Tool{meet, seq, par}}), nil)

	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if res := call(t, cs, "meet", nil); res.IsError {
				t.Errorf("meet: %q", text(res))
			}
		})
	}
	wg.Wait()

	// Sequential calls mixed with parallel ones: whenever a sequential
	// call runs, it runs alone.
	var seqAlone atomic.Bool
	seqAlone.Store(true)
	seq.Func = func(ctx context.Context, _ string, _ json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		if running.Add(1) != 1 {
			seqAlone.Store(false)
		}
		for range 1000 {
			if running.Load() != 1 {
				seqAlone.Store(false)
			}
		}
		running.Add(-1)
		return host.ToolResult{Content: host.Text("ok")}, nil
	}
	for i := range 20 {
		name := "par"
		if i%3 == 0 {
			name = "seq"
		}
		wg.Go(func() {
			if res := call(t, cs, name, nil); res.IsError {
				t.Errorf("%s: %q", name, text(res))
			}
		})
	}
	wg.Wait()
	if !seqAlone.Load() {
		t.Fatal("a sequential call ran beside another call of its session")
	}
}

// ask goes to the client by elicitation when it can answer: accepting
// runs the call, declining blocks it with the answer. A client without
// elicitation leaves the question to the hook's on_ask (block by default).
func TestAskByElicitation(t *testing.T) {
	asks := host.WithBeforeOptions(host.BeforeToolCallFunc(func(ctx context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
		return &host.BeforeToolCallResult{Ask: "really run " + c.ToolCall.Name + "?"}, nil
	}), host.HookOptions{Name: "asker"})
	runner := &host.ToolRunner{Tools: []host.Tool{hosttest.Echo("echo")}, BeforeToolCall: []host.BeforeToolCallHook{asks}}
	for _, c := range []struct {
		name   string
		answer *sdk.ElicitResult // nil: the client cannot elicit
		ok     bool
		want   string
	}{
		{"accepted", &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, true, `{"x":1}`},
		{"unticked", &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": false}}, false, "answer: no"},
		{"declined", &sdk.ElicitResult{Action: "decline"}, false, "answer: no"},
		{"no elicitation", nil, false, "on_ask block"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var asked string
			opts := &sdk.ClientOptions{}
			if c.answer != nil {
				opts.ElicitationHandler = func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					asked = r.Params.Message
					return c.answer, nil
				}
			}
			cs := connect(t, newServer(t, runner), opts)
			res := call(t, cs, "echo", map[string]any{"x": 1})
			if res.IsError == c.ok || !strings.Contains(text(res), c.want) {
				t.Fatalf("result %q (isError %v), want %q", text(res), res.IsError, c.want)
			}
			if c.answer != nil && !strings.Contains(asked, "asker asks: really run echo?") {
				t.Fatalf("the client was asked %q", asked)
			}
		})
	}
}

// Tools whose parameters MCP cannot carry are refused by name; empty
// parameters and a schema without a type are served as objects.
func TestInputSchemas(t *testing.T) {
	if _, err := mcp.New(mcp.Options{Runner: &host.ToolRunner{Tools: []host.Tool{hosttest.Tool("str", `{"type":"string"}`, nil)}}}); err == nil || !strings.Contains(err.Error(), "tool str") {
		t.Fatalf("a string schema: err = %v", err)
	}
	srv := newServer(t, &host.ToolRunner{Tools: []host.Tool{hosttest.Echo("any"), hosttest.Tool("untyped", `{"properties":{"a":{"type":"integer"}}}`, nil)}})
	res, err := connect(t, srv, nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if b, _ := json.Marshal(tool.InputSchema); !strings.Contains(string(b), `"type":"object"`) {
			t.Errorf("%s's schema = %s", tool.Name, b)
		}
	}
}
