package sdk_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/sdk"
	"github.com/wasmagent/wasmagent/sdk/sdktest"
)

type greetArgs struct {
	Name  string `json:"name" description:"who to greet"`
	Times int    `json:"times,omitempty"`
}

type spanArgs struct {
	From int `json:"from,omitempty"`
	To   int `json:"to,omitempty"`
}

func init() {
	sdk.SetInfo(sdk.Info{Name: "greeter", Version: "0.1.0", Needs: &sdk.Needs{Config: []sdk.ConfigNeed{{Key: "greeting", Optional: true}}}})
	greet := sdk.NewTool("greet", "Greets someone.", func(c *sdk.Call, a greetArgs) (*sdk.Result, error) {
		g, ok := c.Config("greeting")
		if !ok {
			g = "Hello"
		}
		for i := 1; i < a.Times; i++ {
			if err := c.Update(sdk.Textf("%d", i)); err != nil {
				return nil, err
			}
		}
		c.Logf(sdk.LogInfo, "greeted %s", a.Name)
		return sdk.Textf("%s, %s!", g, a.Name).WithDetails(map[string]int{"times": a.Times}), nil
	})
	greet.Prepare = func(args json.RawMessage) (json.RawMessage, error) {
		// Accept the old argument name "who".
		var old struct {
			Who *string `json:"who"`
		}
		if json.Unmarshal(args, &old) == nil && old.Who != nil {
			return json.Marshal(map[string]string{"name": *old.Who})
		}
		return args, nil
	}
	sdk.RegisterTool(greet)
	stop := sdk.NewTool("stop", "Ends the run.", func(c *sdk.Call, _ struct{}) (*sdk.Result, error) {
		return sdk.Text("stopping").Terminated(), nil
	})
	stop.ExecutionMode = sdk.Sequential
	no := false
	stop.Annotations = &sdk.Annotations{ReadOnly: &no}
	sdk.RegisterTool(stop)
	// What tags cannot say, a schema of one's own says; arguments are
	// still decoded into the type.
	span := sdk.NewTool("span", "A span.", func(c *sdk.Call, a spanArgs) (*sdk.Result, error) {
		return sdk.Textf("%d-%d", a.From, a.To), nil
	})
	span.Parameters = json.RawMessage(`{"type":"object","properties":{"from":{"type":"integer"},"to":{"type":"integer"}},"additionalProperties":false,"minProperties":1}`)
	sdk.RegisterTool(span)
	sdk.RegisterTool(sdk.NewTool("boom", "Panics.", func(c *sdk.Call, _ struct{}) (*sdk.Result, error) {
		var m map[string]int
		m["x"]++
		return nil, nil
	}))
	sdk.RegisterTool(sdk.Tool{
		Name: "picture", Description: "An image.", Parameters: json.RawMessage(`{"type":"object"}`),
		Run: func(c *sdk.Call, _ json.RawMessage) (*sdk.Result, error) {
			return (&sdk.Result{}).Add(sdk.ImageContent([]byte{0x89, 'P', 'N', 'G'}, "image/png")), nil
		},
	})
	sdk.RegisterBeforeToolCall(func(c *sdk.Call, in *sdk.BeforeInput) (*sdk.BeforeOutput, error) {
		if c.Name == "stop" {
			return &sdk.BeforeOutput{Block: true, Reason: "no stopping"}, nil
		}
		return nil, nil
	})
	sdk.RegisterAfterToolCall(func(c *sdk.Call, in *sdk.AfterInput) (*sdk.AfterOutput, error) {
		if in.IsError {
			return nil, errors.New("after hook saw an error")
		}
		return &sdk.AfterOutput{Details: map[string]string{"checked": c.ID}}, nil
	})
}

func TestDescribe(t *testing.T) {
	var h sdktest.Host
	d, err := h.Describe()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(d)
	want := `{"abi":1,"name":"greeter","version":"0.1.0","tools":[` +
		`{"name":"greet","description":"Greets someone.","parameters":{"additionalProperties":false,"properties":{"name":{"description":"who to greet","type":"string"},"times":{"type":"integer"}},"required":["name"],"type":"object"},"prepareArguments":true},` +
		`{"name":"stop","description":"Ends the run.","parameters":{"additionalProperties":false,"properties":{},"type":"object"},"executionMode":"sequential","annotations":{"readOnlyHint":false}},` +
		`{"name":"span","description":"A span.","parameters":{"type":"object","properties":{"from":{"type":"integer"},"to":{"type":"integer"}},"additionalProperties":false,"minProperties":1}},` +
		`{"name":"boom","description":"Panics.","parameters":{"additionalProperties":false,"properties":{},"type":"object"}},` +
		`{"name":"picture","description":"An image.","parameters":{"type":"object"}}],` +
		`"hooks":["beforeToolCall","afterToolCall"],"needs":{"config":[{"key":"greeting","optional":true}]}}`
	if string(b) != want {
		t.Fatalf("describe:\n got %s\nwant %s", b, want)
	}
}

func TestExecute(t *testing.T) {
	h := sdktest.Host{Config: map[string]string{"greeting": "Hi"}}
	r, err := h.Execute("greet", map[string]any{"name": "Ada", "times": 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Content[0].Text != "Hi, Ada!" || fmt.Sprint(r.Details) != "map[times:3]" {
		t.Fatalf("result = %+v", r)
	}
	if u := h.Updates(); len(u) != 2 || string(u[1]) != `{"content":[{"type":"text","text":"2"}]}` {
		t.Fatalf("updates = %s", u)
	}
	if l := h.Logs(); len(l) != 1 || l[0].Msg != "greeted Ada" || l[0].Level != sdk.LogInfo {
		t.Fatalf("logs = %+v", l)
	}
	// prepare_arguments rewrites the old shape before validation.
	if r, err := h.Execute("greet", map[string]any{"who": "Bob"}); err != nil || r.Content[0].Text != "Hi, Bob!" {
		t.Fatalf("prepared: %+v %v", r, err)
	}
	if r, err := h.Execute("stop", nil); err != nil || !r.Terminate {
		t.Fatalf("stop: %+v %v", r, err)
	}
	if r, err := h.Execute("picture", nil); err != nil || r.Content[0].Type != "image" || r.Content[0].Data != "iVBORw==" {
		t.Fatalf("picture: %+v %v", r, err)
	}
}

func TestExecuteErrors(t *testing.T) {
	var h sdktest.Host
	for _, c := range []struct {
		tool string
		args any
		want string
	}{
		{"greet", map[string]any{"times": 2}, `Validation failed for tool "greet"`},
		{"greet", map[string]any{"name": "x", "extra": 1}, `Validation failed for tool "greet"`},
		{"missing", nil, "Tool missing not found"},
		{"boom", nil, "the plugin panicked in execute: assignment to entry in nil map"},
	} {
		if _, err := h.Execute(c.tool, c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: err = %v, want %q", c.tool, c.args, err, c.want)
		}
	}
	// Typed tools refuse unknown fields even past a lenient host.
	in := []byte(`{"toolCallId":"c","name":"greet","args":{"name":"x","bogus":true}}`)
	if _, err := h.Call(sdk.ExportExecute, in); err == nil || !strings.Contains(err.Error(), `unknown field "bogus"`) {
		t.Errorf("raw execute: %v", err)
	}
	if _, err := h.Call(sdk.ExportExecute, []byte("{")); err == nil || !strings.Contains(err.Error(), "the host's input is not valid") {
		t.Errorf("bad input: %v", err)
	}
}

func TestHooks(t *testing.T) {
	var h sdktest.Host
	if r, err := h.BeforeToolCall("stop", nil); err != nil || !r.Block || r.Reason != "no stopping" {
		t.Fatalf("before stop: %+v %v", r, err)
	}
	if r, err := h.BeforeToolCall("greet", map[string]string{"name": "x"}); err != nil || r.Block {
		t.Fatalf("before greet: %+v %v", r, err)
	}
	r, err := h.AfterToolCall("greet", nil, sdk.Text("ok"))
	if err != nil || fmt.Sprintf("%s", r.Details) != `{"checked":"call_1"}` || r.Content != nil || r.IsError != nil {
		t.Fatalf("after: %+v %v", r, err)
	}
	failed := sdk.Text("bad")
	failed.IsError = true
	if _, err := h.AfterToolCall("greet", nil, failed); err == nil || err.Error() != "after hook saw an error" {
		t.Fatalf("after error: %v", err)
	}
}

// A schema set on a NewTool's Parameters is the one the host validates
// against, and the arguments still arrive as the Go type.
func TestNewToolWithItsOwnSchema(t *testing.T) {
	var h sdktest.Host
	if _, err := h.Execute("span", map[string]any{}); err == nil || !strings.Contains(err.Error(), "minProperties") && !strings.Contains(err.Error(), "at least 1") {
		t.Fatalf("{} against minProperties 1: err = %v", err)
	}
	r, err := h.Execute("span", map[string]any{"to": 3})
	if err != nil || r.Content[0].Text != "0-3" {
		t.Fatalf("got %+v, %v", r, err)
	}
}
