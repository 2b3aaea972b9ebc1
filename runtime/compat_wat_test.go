package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
)

// A plugin written directly in WAT, with no PDK (internal/testplugins/wat),
// is a wasmagent plugin: the host loads it, checks its description, runs
// its tool with arguments coerced and validated as docs/abi.md says, and
// its hook; and plain Extism go-sdk gives the same bytes.
func TestWATPluginFollowsTheABI(t *testing.T) {
	path := wasmbuild.WATForTest(t, "internal/testplugins/wat")
	wasm, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := wasmtool.Load(ctx, rt(t), path, wasmtool.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tools := p.Tools()
	if len(tools) != 1 || tools[0].Info().Name != "inspect" || p.BeforeToolCall() == nil || p.AfterToolCall() != nil {
		t.Fatalf("description %+v", p.Description())
	}
	// What the model sent ("5") is coerced to the schema's integer before
	// execute sees it, as docs/abi.md says of args.
	schema, err := host.CompileSchema(tools[0].Info().Parameters)
	if err != nil {
		t.Fatal(err)
	}
	args, err := schema.ValidateArguments("inspect", json.RawMessage(`{"n":"5"}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := tools[0].Execute(ctx, "call_9", args, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := json.Marshal(r.Details)
	if r.Content.TextOf() != "written in WAT" || string(d) != `{"toolCallId":"call_9","name":"inspect","args":{"n":5}}` {
		t.Fatalf("execute: %q, details %s", r.Content.TextOf(), d)
	}
	b, err := p.BeforeToolCall().BeforeToolCall(ctx, &host.ToolCallContext{ToolCall: host.ToolCall{ID: "c", Name: "rm", Arguments: json.RawMessage(`{}`)}, Args: json.RawMessage(`{}`)})
	if err != nil || !b.Block || b.Reason != "the WAT plugin blocks every call" {
		t.Fatalf("before_tool_call: %+v %v", b, err)
	}
	for _, c := range []struct{ export, input string }{
		{"describe", ""},
		{"execute", `{"toolCallId":"c1","name":"inspect","args":{"n":1}}`},
		{"before_tool_call", `{"toolCall":{"id":"c1","name":"x","arguments":{}},"args":{}}`},
	} {
		want, _, err := extismCall(t, wasm, nil, c.export, []byte(c.input))
		if err != nil {
			t.Fatalf("extism %s: %v", c.export, err)
		}
		got, err := pluginOf(t, "wat.wasm", wasm, runtime.PluginOptions{}).Call(ctx, c.export, []byte(c.input), nil)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: ours %q (%v), extism %q", c.export, got, err, want)
		}
	}
}
