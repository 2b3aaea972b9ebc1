package wasmtool_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// maxErrorBytes bounds every error a plugin's output can make the host
// write, whatever the plugin put in it: the messages quote what is
// wrong, cut.
const maxErrorBytes = 16 << 10

// An output can be wrong in a way that names a string the plugin chose
// (a field, a content type, a MIME type, a tool or hook name, an
// export): the error that says so, which goes to the model, the
// terminal and the session, quotes it cut, never whole. Each case puts
// 16 KiB of invalid bytes (each written 3 or 4 bytes long in a message)
// where the message would quote it, in every output the host decodes. On
// the old main each such error held the whole string (256 KiB made 768
// KiB).
func TestErrorsQuoteOutputsCut(t *testing.T) {
	huge := strings.Repeat("\xfe", 16<<10)
	desc := `{"abi":1,"name":"m","tools":[{"name":"t","description":"d"}],"hooks":["beforeToolCall","afterToolCall"]}`
	for _, c := range []struct {
		name    string
		outputs map[string]string
		run     string // "load", "execute", "before", "after"
	}{
		{"content type", map[string]string{"execute": `{"content":[{"type":"` + huge + `"}]}`}, "execute"},
		{"image MIME type", map[string]string{"execute": `{"content":[{"type":"image","mimeType":"image/` + huge + `","data":""}]}`}, "execute"},
		{"unknown field in a content block", map[string]string{"execute": `{"content":[{"type":"text","` + huge + `":1}]}`}, "execute"},
		{"arguments of a before hook's answer", map[string]string{"before_tool_call": `{"arguments":"` + huge + `"}`}, "before"},
		{"ask of a before hook's answer", map[string]string{"before_tool_call": `{"ask":["` + huge + `"]}`}, "before"},
		{"content of an after hook's answer", map[string]string{"after_tool_call": `{"content":"` + huge + `"}`}, "after"},
		{"content type in an after hook's answer", map[string]string{"after_tool_call": `{"content":[{"type":"` + huge + `"}]}`}, "after"},
		{"unknown field in describe", map[string]string{"describe": `{"abi":1,"name":"m","` + huge + `":1}`}, "load"},
		{"tool name", map[string]string{"describe": `{"abi":1,"name":"m","tools":[{"name":"` + huge + `","description":"d"}]}`}, "load"},
		{"hook name", map[string]string{"describe": `{"abi":1,"name":"m","hooks":["` + huge + `"]}`}, "load"},
		{"tool parameters", map[string]string{"describe": `{"abi":1,"name":"m","tools":[{"name":"t","description":"d","parameters":{"type":"` + huge + `"}}]}`}, "load"},
	} {
		t.Run(c.name, func(t *testing.T) {
			outputs := map[string]string{"describe": desc, "execute": `{"content":[]}`, "before_tool_call": `{}`, "after_tool_call": `{}`}
			for k, v := range c.outputs {
				outputs[k] = v
			}
			p, err := constPlugin(t, outputs)
			if c.run != "load" {
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				tc := &host.ToolCallContext{ToolCall: call("c1", "t", `{}`), Args: []byte(`{}`)}
				switch c.run {
				case "execute":
					_, err = p.Tools()[0].Execute(ctx, "c1", []byte(`{}`), nil)
				case "before":
					_, err = p.BeforeToolCall().BeforeToolCall(ctx, tc)
				case "after":
					_, err = p.AfterToolCall().AfterToolCall(ctx, &host.AfterToolCallContext{ToolCallContext: *tc, Result: host.ToolResult{Content: host.Text("x")}})
				}
			}
			if err == nil {
				t.Fatal("the output was accepted")
			}
			if n := len(err.Error()); n > maxErrorBytes {
				t.Fatalf("the error is %d bytes (bound %d): %.300s", n, maxErrorBytes, err)
			}
		})
	}
}

// A module that is not a plugin is told so with its exports listed, cut:
// a module chooses their number and their names.
func TestNotAPluginListsExportsCut(t *testing.T) {
	exports := map[string]string{}
	for i := range 200 {
		exports[strings.Repeat("x", 1000)+strconv.Itoa(i)] = "{}"
	}
	_, err := wasmtool.LoadBytes(context.Background(), rt(t), "many.wasm", wasmbuild.ConstPlugin(exports), wasmtool.Options{})
	if err == nil || !strings.Contains(err.Error(), "it does not export \"describe\"") {
		t.Fatalf("err = %v", err)
	}
	if n := len(err.Error()); n > maxErrorBytes {
		t.Fatalf("the error is %d bytes (bound %d)", n, maxErrorBytes)
	}
}
