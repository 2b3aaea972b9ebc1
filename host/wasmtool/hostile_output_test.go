package wasmtool_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
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
		return `{"content":[` + strings.TrimSuffix(strings.Repeat(`{"type":"text"},`, n), ",") + `]}`
	}
	for _, n := range []int{wasmtool.MaxContentBlocks, wasmtool.MaxContentBlocks + 1} {
		res, _, err := wasmtool.ParseResult([]byte(blocks(n)))
		if over := n > wasmtool.MaxContentBlocks; over != (err != nil) || (!over && len(res.Content) != n) {
			t.Fatalf("%d blocks: %d back, err = %v", n, len(res.Content), err)
		}
	}
	// Through a plugin, as a result and as an after_tool_call rewrite.
	describe := `{"abi":1,"name":"many","tools":[{"name":"t","description":"d"}],"hooks":["afterToolCall"]}`
	over := blocks(wasmtool.MaxContentBlocks + 1)
	p, err := constPlugin(t, map[string]string{"describe": describe, "execute": over, "after_tool_call": over})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Tools()[0].Execute(context.Background(), "c1", []byte(`{}`), nil)
	ac := &host.AfterToolCallContext{ToolCallContext: host.ToolCallContext{ToolCall: call("c1", "t", `{}`), Args: []byte(`{}`)}, Result: host.ToolResult{Content: host.Text("x")}}
	_, aerr := p.AfterToolCall().AfterToolCall(context.Background(), ac)
	for _, err := range []error{err, aerr} {
		if err == nil || !strings.Contains(err.Error(), "MaxContentBlocks") || !strings.Contains(err.Error(), "plugin const") {
			t.Fatalf("err = %v", err)
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

// textCode writes the code of hand-made Extism modules: each text is
// copied from a data segment into an Extism block, byte by byte, as
// ConstPlugin does. Its functions have two i64 locals; imports are
// textImports.
type textCode struct{ data []byte }

const (
	fAlloc = iota
	fStoreU8
	fOutputSet
	fEmitUpdate
	textImportCount
)

var textImports = []wasmbuild.Import{
	{Module: "extism:host/env", Name: "alloc", Func: wasmbuild.Func{Params: []byte{wasmbuild.I64}, Results: []byte{wasmbuild.I64}}},
	{Module: "extism:host/env", Name: "store_u8", Func: wasmbuild.Func{Params: []byte{wasmbuild.I64, wasmbuild.I32}}},
	{Module: "extism:host/env", Name: "output_set", Func: wasmbuild.Func{Params: []byte{wasmbuild.I64, wasmbuild.I64}}},
	{Module: "extism:host/user", Name: "emit_update", Func: wasmbuild.Func{Params: []byte{wasmbuild.I64}}},
}

// block copies text into a new block, whose offset it leaves in local 1
// (local 0 counts the bytes).
func (c *textCode) block(text string) []byte {
	start, n := wasmbuild.SLEB(int64(len(c.data))), wasmbuild.SLEB(int64(len(text)))
	c.data = append(c.data, text...)
	var b []byte
	for _, part := range [][]byte{
		{0x42, 0, 0x21, 0}, // i = 0
		{0x42}, n, {0x10, fAlloc, 0x21, 1},
		{0x02, 0x40, 0x03, 0x40},            // block loop
		{0x20, 0, 0x42}, n, {0x5a, 0x0d, 1}, // i >= n: out
		{0x20, 1, 0x20, 0, 0x7c},                         // off + i
		{0x20, 0, 0x42}, start, {0x7c, 0xa7, 0x2d, 0, 0}, // data[start+i]
		{0x10, fStoreU8},
		{0x20, 0, 0x42, 1, 0x7c, 0x21, 0}, // i++
		{0x0c, 0, 0x0b, 0x0b},
	} {
		b = append(b, part...)
	}
	return b
}

// output sets text as the output and returns 0.
func (c *textCode) output(text string) []byte {
	b := append(c.block(text), 0x20, 1, 0x42)
	b = append(b, wasmbuild.SLEB(int64(len(text)))...)
	return append(b, 0x10, fOutputSet, 0x41, 0)
}

// module is the module of these exports, each a () -> i32 body.
func (c *textCode) module(bodies map[string][]byte) []byte {
	m := wasmbuild.Module{Imports: textImports, Exports: map[string]uint32{}, Data: c.data, MemoryPages: uint32(len(c.data)>>16 + 1)}
	for _, name := range []string{"describe", "execute", "prepare_arguments"} {
		if body, ok := bodies[name]; ok {
			m.Exports[name] = uint32(textImportCount + len(m.Funcs))
			m.Funcs = append(m.Funcs, wasmbuild.Func{Results: []byte{wasmbuild.I32}, Locals: []byte{wasmbuild.I64, wasmbuild.I64}, Body: body})
		}
	}
	return m.Encode()
}

// updatePlugin is a module whose execute emits update as a partial result,
// then outputs result; describe outputs describe.
func updatePlugin(describe, update, result string) []byte {
	var c textCode
	d := c.output(describe)
	execute := append(c.block(update), 0x20, 1, 0x10, fEmitUpdate)
	execute = append(execute, c.output(result)...)
	return c.module(map[string][]byte{"describe": d, "execute": execute})
}

// An update is held to what a result is: valid UTF-8 once the host passes
// it on, at most MaxContentBlocks blocks, text or image blocks only. On the
// old main an update passed on raw bytes, any number of blocks, and blocks
// of any type.
func TestUpdatesAreHeldLikeResults(t *testing.T) {
	describe := `{"abi":1,"name":"u","tools":[{"name":"t","description":"d"}]}`
	for _, c := range []struct{ update, want string }{
		{"{\"content\":[],\"details\":\"\xff\"}", `{"content":[],"details":"` + "\ufffd" + `"}`},
		{`{"content":[` + strings.Repeat(`{},`, wasmtool.MaxContentBlocks) + `{}]}`, "MaxContentBlocks"},
		{`{"content":[{"type":"video"}]}`, `type "video" is not text or image`},
	} {
		p, err := wasmtool.LoadBytes(context.Background(), rt(t), "u.wasm", updatePlugin(describe, c.update, `{"content":[]}`), wasmtool.Options{Name: "u"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		_, err = p.Tools()[0].Execute(context.Background(), "c1", []byte(`{}`), func(partial any) {
			got = append(got, string(partial.(json.RawMessage)))
		})
		p.Close()
		if !strings.HasPrefix(c.want, "{") {
			if err == nil || !strings.Contains(err.Error(), c.want) || len(got) != 0 {
				t.Fatalf("err = %v, %d updates", err, len(got))
			}
			continue
		}
		if err != nil || len(got) != 1 || got[0] != c.want {
			t.Fatalf("updates %q, err = %v", got, err)
		}
	}
}

// Agent.Abort stops a plugin's prepare_arguments that loops forever (its
// timeout is ten minutes): the call ends as an error result, the run as
// aborted. On the old main prepare_arguments ran with no context, and the
// run waited for the plugin's timeout.
func TestAbortStopsPrepareArguments(t *testing.T) {
	var c textCode
	wasm := c.module(map[string][]byte{
		"describe":          c.output(`{"abi":1,"name":"prep","tools":[{"name":"t","description":"d","prepareArguments":true}]}`),
		"execute":           c.output(`{"content":[]}`),
		"prepare_arguments": {0x03, 0x40, 0x0c, 0, 0x0b, 0x41, 0}, // loop br 0 end; i32.const 0
	})
	p, err := wasmtool.LoadBytes(context.Background(), rt(t), "prep.wasm", wasm, wasmtool.Options{Name: "prep", Grants: runtime.Grants{Timeout: 10 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	m := scripted.Of(scripted.Turn{Content: calls(call("c1", "t", `{}`))}, scripted.Turn{Content: host.Text("done")})
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
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("the run ended (%v) before its tool call started", err)
	case <-time.After(60 * time.Second):
		t.Fatal("no tool_execution_start in 60 s")
	}
	time.Sleep(50 * time.Millisecond)
	a.Abort()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not end after Abort")
	}
	if got := results(a.State().Messages); len(got) != 1 || !strings.Contains(got[0], "abort") {
		t.Fatalf("results = %q", got)
	}
}

// An image's MIME type goes into a data URL: only a bare image/NAME is
// taken. On the old main any text after "image/" was, parameters, commas
// and all.
func TestImageTypesAreBare(t *testing.T) {
	for _, c := range []struct {
		mime string
		ok   bool
	}{
		{"image/png", true}, {"image/svg+xml", true}, {"image/vnd.ms-photo", true}, {"image/x-icon", true},
		{"image/png;base64,iVBORw0KGgo=#", false}, {"image/png,x", false}, {"image/", false}, {"image/-x", false},
		{"image/png ", false}, {"image/p\x00ng", false}, {"image/" + strings.Repeat("a", 128), false}, {"text/html", false}, {"", false},
	} {
		b, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "image", "data": "aGk=", "mimeType": c.mime}}})
		_, _, err := wasmtool.ParseResult(b)
		if c.ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "not an image type")) {
			t.Errorf("%q: err = %v", c.mime, err)
		}
	}
}

// An execute that answers something other than a result (an Extism
// plugin's own JSON, a bare number, text) is told what a result looks
// like, whichever way it is wrong.
func TestNotAResultShowsOne(t *testing.T) {
	desc := `{"abi":1,"name":"c","tools":[{"name":"t","description":"d","parameters":{"type":"object"}}]}`
	for _, out := range []string{`{"count":3}`, `3`, `three`, `[]`} {
		p, err := constPlugin(t, map[string]string{"describe": desc, "execute": out})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Tools()[0].Execute(context.Background(), "c1", json.RawMessage(`{}`), nil)
		if err == nil || !strings.Contains(err.Error(), `a result is {"content": [{"type": "text", "text": "…"}]}`) {
			t.Errorf("execute answering %s: err = %v", out, err)
		}
	}
}
