package wasmtool_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

const okTool = `{"name":"t","description":"d","parameters":{"type":"object"}}`

// Each bad description is refused at load with an error that names the
// file and says what is wrong.
func TestBadDescriptions(t *testing.T) {
	for _, c := range []struct {
		name, describe, want string
	}{
		{"not JSON", `{"abi":1,`, "the output is not JSON"},
		{"empty output", ``, "the output is not JSON"},
		{"unknown field", `{"abi":1,"name":"x","tools":[` + okTool + `],"extra":true}`, `unknown field "extra"`},
		{"wrong abi", `{"abi":2,"name":"x","tools":[` + okTool + `]}`, "abi is 2; this host speaks ABI 1"},
		{"no name", `{"abi":1,"tools":[` + okTool + `]}`, "name is empty"},
		{"nothing offered", `{"abi":1,"name":"x"}`, "no tool and no hook"},
		{"bad tool name", `{"abi":1,"name":"x","tools":[{"name":"read file","description":"d"}]}`, `name "read file" does not match`},
		{"long tool name", `{"abi":1,"name":"x","tools":[{"name":"` + strings.Repeat("a", 65) + `","description":"d"}]}`, "does not match"},
		{"duplicate tool", `{"abi":1,"name":"x","tools":[` + okTool + `,` + okTool + `]}`, `tool "t" is listed twice`},
		{"bad mode", `{"abi":1,"name":"x","tools":[{"name":"t","description":"d","executionMode":"serial"}]}`, `executionMode "serial"`},
		{"bad schema", `{"abi":1,"name":"x","tools":[{"name":"t","description":"d","parameters":{"type":"nonsense"}}]}`, "tool t: parameters"},
		{"unknown hook", `{"abi":1,"name":"x","hooks":["onError"]}`, `unknown hook "onError"`},
		{"unknown annotation", `{"abi":1,"name":"x","tools":[{"name":"t","description":"d","annotations":{"readOnly":true}}]}`, `unknown field "readOnly"`},
		{"annotation not a boolean", `{"abi":1,"name":"x","tools":[{"name":"t","description":"d","annotations":{"readOnlyHint":"yes"}}]}`, "readOnlyHint"},
		{"relative need", `{"abi":1,"name":"x","tools":[` + okTool + `],"needs":{"paths":[{"guest":"data"}]}}`, "not an absolute guest path"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := raw(t, map[string]string{"describe": c.describe})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "raw") {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestDescribeFails(t *testing.T) {
	_, err := raw(t, map[string]string{"describe.error": "no config file"})
	if err == nil || !strings.Contains(err.Error(), "no config file") {
		t.Fatalf("err = %v", err)
	}
}

// What a tool returns is checked: JSON, the ABI's fields, known content.
func TestBadExecuteOutputs(t *testing.T) {
	describe := `{"abi":1,"name":"raw","tools":[` + okTool + `]}`
	for _, c := range []struct{ out, want string }{
		{`not json`, "the output is not JSON"},
		{`{"content":[{"type":"text","text":"x"}],"is_error":true}`, `unknown field "is_error"`},
		{`{"details":{}}`, `no "content"`},
		{`{"content":[{"type":"toolCall"}]}`, `type "toolCall" is not text or image`},
		{`{"content":[{"type":"image","data":"%%%","mimeType":"image/png"}]}`, "not base64"},
		{`{"content":[{"type":"image","data":"","mimeType":"text/html"}]}`, "not an image type"},
		{`{"content":[{"type":"text","text":"bad input"}],"isError":true}`, "bad input"},
	} {
		t.Run(c.out, func(t *testing.T) {
			p, err := raw(t, map[string]string{"describe": describe, "execute": c.out})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Tools()[0].Execute(context.Background(), "c1", []byte(`{}`), nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// What a hook answers is read as pi reads it (answer_test.go); the ABI's
// own fields stay checked: arguments that are no object, content blocks
// that are not the ABI's.
func TestBadHookOutputs(t *testing.T) {
	describe := `{"abi":1,"name":"raw","hooks":["beforeToolCall","afterToolCall"]}`
	p, err := raw(t, map[string]string{"describe": describe, "before_tool_call": `{"arguments":"yes"}`, "after_tool_call": `{"content":[{"type":"video"}]}`})
	if err != nil {
		t.Fatal(err)
	}
	c := &host.ToolCallContext{ToolCall: host.ToolCall{ID: "c1", Name: "t", Arguments: []byte(`{}`)}, Args: []byte(`{}`)}
	if _, err := p.BeforeToolCall().BeforeToolCall(context.Background(), c); err == nil || !strings.Contains(err.Error(), "before_tool_call: arguments is \"yes\", not a JSON object") {
		t.Fatalf("before: %v", err)
	}
	ac := &host.AfterToolCallContext{ToolCallContext: *c, Result: host.ToolResult{Content: host.Text("x")}}
	if _, err := p.AfterToolCall().AfterToolCall(context.Background(), ac); err == nil || !strings.Contains(err.Error(), `"video" is not text or image`) {
		t.Fatalf("after: %v", err)
	}
}

// A hook listed in describe must be exported, and a tool needs execute.
func TestDescribedExportsMustExist(t *testing.T) {
	_, err := wasmtool.LoadBytes(context.Background(), rt(t), "describe-only.wasm", describeOnly(`{"abi":1,"name":"x","tools":[`+okTool+`],"hooks":["afterToolCall"]}`), wasmtool.Options{})
	if err == nil || !strings.Contains(err.Error(), `does not export "execute"`) || !strings.Contains(err.Error(), `does not export "after_tool_call"`) {
		t.Fatalf("err = %v", err)
	}
}

// describeOnly is a module without a language runtime whose only export,
// describe, outputs d (from a data segment, through the Extism ABI).
func describeOnly(d string) []byte {
	return wasmbuild.DescribeOnly(d)
}

func TestNeeds(t *testing.T) {
	needs := `{"paths":[{"guest":"/work","write":true,"why":"it edits files"}],"hosts":[{"host":"api.example.com"}],"config":[{"key":"token"},{"key":"style","optional":true}]}`
	describe := `{"abi":1,"name":"raw","tools":[` + okTool + `],"needs":` + needs + `}`
	dir := t.TempDir()
	// Nothing granted: every required need is named.
	_, err := raw(t, map[string]string{"describe": describe})
	for _, want := range []string{"directory /work (read-write) (it edits files)", "host api.example.com", "config value token"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "style") {
		t.Errorf("an optional need was reported missing: %v", err)
	}
	// A read-only grant does not meet a read-write need.
	missing, _ := wasmtool.CheckNeeds(&sdk.Needs{Paths: []sdk.PathNeed{{Guest: "/work", Write: true}}}, runtime.Grants{Dirs: []runtime.Dir{{Host: dir, Guest: "/work"}}})
	if len(missing) != 1 {
		t.Errorf("read-only grant met a read-write need: %v", missing)
	}
	// Everything granted, plus things nobody asked for.
	p, err := load(t, "internal/testplugins/raw", wasmtool.Options{Name: "raw", Grants: runtime.Grants{
		Config: map[string]string{"describe": describe, "token": "t", "unasked": "x"},
		Dirs:   []runtime.Dir{{Host: dir, Guest: "/", Write: true}, {Host: t.TempDir(), Guest: "/tmp"}},
		Hosts:  []string{"*.example.com", "evil.test"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	unused := p.UnusedGrants()
	if len(unused) != 4 || !strings.Contains(fmt.Sprint(unused), "host evil.test") || !strings.Contains(fmt.Sprint(unused), "config value unasked") || !strings.Contains(fmt.Sprint(unused), "→ /tmp") {
		t.Fatalf("unused = %q", unused)
	}
}

// A tool's annotations reach host.ToolInfo as they were written: a hint
// given (true or false) is kept, an absent one claims nothing.
func TestAnnotations(t *testing.T) {
	describe := `{"abi":1,"name":"raw","tools":[{"name":"a","description":"d","annotations":{"readOnlyHint":true,"openWorldHint":false}},{"name":"b","description":"d"}]}`
	p, err := raw(t, map[string]string{"describe": describe})
	if err != nil {
		t.Fatal(err)
	}
	a, b := p.Tools()[0].Info().Hints, p.Tools()[1].Info().Hints
	if a.ReadOnly == nil || !*a.ReadOnly || a.OpenWorld == nil || *a.OpenWorld || a.Destructive != nil || a.Idempotent != nil {
		t.Fatalf("a's hints = %+v", a)
	}
	if !b.IsZero() {
		t.Fatalf("b claims %+v, want nothing", b)
	}
}
