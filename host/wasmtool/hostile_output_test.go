package wasmtool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// constPlugin loads a module whose exports each output a fixed text.
func constPlugin(t *testing.T, outputs map[string]string) (*wasmtool.Plugin, error) {
	t.Helper()
	p, err := wasmtool.LoadBytes(context.Background(), rt(t), "const.wasm", wasmbuild.ConstPlugin(outputs), wasmtool.Options{Name: "const"})
	if err == nil {
		t.Cleanup(p.Close)
	}
	return p, err
}

// A schema number past exact arithmetic is no way to take the host down:
// on the old main, multipleOf 1e-99999999 made the schema compiler
// dereference a nil big.Rat, a panic in Load (and in the goroutine of a
// background load, the end of the process).
func TestHostileSchemaNumbers(t *testing.T) {
	for _, params := range []string{
		`{"type":"object","properties":{"n":{"multipleOf":1e-99999999}}}`,
		`{"type":"object","properties":{"n":{"minimum":1e99999999}}}`,
	} {
		_, err := constPlugin(t, map[string]string{"describe": `{"abi":1,"name":"x","tools":[{"name":"t","description":"d","parameters":` + params + `}]}`, "execute": `{"content":[]}`})
		if err == nil || !strings.Contains(err.Error(), "const.wasm") || !strings.Contains(err.Error(), "tool t: parameters") {
			t.Errorf("%s: err = %v", params, err)
		}
	}
}

// A beforeToolCall hook that rewrites arguments with a number past exact
// arithmetic gets them validated as the double they denote. On the old
// main, validating the rewrite (outside any recover) panicked the loop.
func TestHookRewriteWithHostileNumber(t *testing.T) {
	hook, err := constPlugin(t, map[string]string{
		"describe":         `{"abi":1,"name":"rewriter","hooks":["beforeToolCall"]}`,
		"before_tool_call": `{"arguments":{"n":1e-99999999}}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	var got string
	tool := hosttest.Tool("t", `{"type":"object","properties":{"n":{"type":"number","minimum":0}}}`, func(_ context.Context, _ string, a json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		got = string(a)
		return host.ToolResult{Content: host.Text("ran")}, nil
	})
	msgs, _, err := runAgent(t, host.AgentOptions{Tools: []host.Tool{tool}, BeforeToolCall: []host.BeforeToolCallHook{hook.BeforeToolCall()}}, call("c1", "t", `{"n":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if r := results(msgs); len(r) != 1 || r[0] != "ran" || got != `{"n":0}` {
		t.Fatalf("results %q, the tool saw %s", r, got)
	}
}

// More content blocks than MaxContentBlocks, in a result, an update or an
// after_tool_call rewrite, are an error naming the cap and the plugin,
// before they are decoded (8 MiB of empty blocks decoded to 220 MiB).
func TestContentBlocksAreBounded(t *testing.T) {
	blocks := func(n int) string {
		return `{"content":[` + strings.TrimSuffix(strings.Repeat(`{"type":"text","text":"x"},`, n), ",") + `]}`
	}
	describe := `{"abi":1,"name":"many","tools":[{"name":"t","description":"d"}],"hooks":["afterToolCall"]}`
	for _, c := range []struct {
		n    int
		fail bool
	}{{wasmtool.MaxContentBlocks, false}, {wasmtool.MaxContentBlocks + 1, true}} {
		p, err := constPlugin(t, map[string]string{"describe": describe, "execute": blocks(c.n), "after_tool_call": blocks(c.n)})
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Tools()[0].Execute(context.Background(), "c1", []byte(`{}`), nil)
		if c.fail != (err != nil) || (err == nil && len(res.Content) != c.n) {
			t.Fatalf("%d blocks: %d back, err = %v", c.n, len(res.Content), err)
		}
		ac := &host.AfterToolCallContext{ToolCallContext: host.ToolCallContext{ToolCall: call("c1", "t", `{}`), Args: []byte(`{}`)}, Result: host.ToolResult{Content: host.Text("x")}}
		_, aerr := p.AfterToolCall().AfterToolCall(context.Background(), ac)
		for _, err := range []error{err, aerr} {
			if c.fail && (err == nil || !strings.Contains(err.Error(), "MaxContentBlocks") || !strings.Contains(err.Error(), "plugin const")) {
				t.Fatalf("%d blocks: err = %v", c.n, err)
			}
			if !c.fail && err != nil {
				t.Fatalf("%d blocks: err = %v", c.n, err)
			}
		}
	}
}

// What a plugin returns as raw JSON (details, rewritten arguments) is
// valid UTF-8 once the host holds it, as its strings are: invalid bytes
// become U+FFFD. On the old main, details kept them, and every event,
// session line and audit line carrying the result was invalid UTF-8
// (Python's json.loads refuses such a line).
func TestRawOutputsAreValidUTF8(t *testing.T) {
	p, err := constPlugin(t, map[string]string{
		"describe":         `{"abi":1,"name":"bytes","tools":[{"name":"t","description":"d"}],"hooks":["beforeToolCall","afterToolCall"]}`,
		"execute":          "{\"content\":[{\"type\":\"text\",\"text\":\"a\xffb\"}],\"details\":{\"k\xfe\":\"v\xff\xc3\"}}",
		"before_tool_call": "{\"arguments\":{\"s\":\"\xed\xa0\x80\"}}",
		"after_tool_call":  "{\"details\":[\"\xff\"]}",
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Tools()[0].Execute(context.Background(), "c1", []byte(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := string(res.Details.(json.RawMessage)); d != `{"k�":"v��"}` {
		t.Errorf("details = %q", d)
	}
	c := &host.ToolCallContext{ToolCall: call("c1", "t", `{}`), Args: []byte(`{}`)}
	before, err := p.BeforeToolCall().BeforeToolCall(context.Background(), c)
	if err != nil || !utf8.Valid(before.Args) {
		t.Errorf("before: %q, %v", before.Args, err)
	}
	after, err := p.AfterToolCall().AfterToolCall(context.Background(), &host.AfterToolCallContext{ToolCallContext: *c, Result: res})
	if err != nil || !utf8.Valid(after.Details.(json.RawMessage)) {
		t.Errorf("after: %v, %v", after, err)
	}
}
