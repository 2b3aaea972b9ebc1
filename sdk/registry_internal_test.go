package sdk

import (
	"encoding/json"
	"strings"
	"testing"
)

// Registration mistakes surface in describe, so the host refuses the
// plugin at load with a message saying what is wrong.
func TestRegistrationMistakes(t *testing.T) {
	saved := registry
	defer func() { registry = saved }()
	run := func(*Call, json.RawMessage) (*Result, error) { return Text(""), nil }
	for _, c := range []struct {
		name  string
		setup func()
		want  string
	}{
		{"no name", func() { RegisterTool(Tool{Name: "t", Run: run}) }, "call sdk.SetInfo"},
		{"nothing", func() { SetInfo(Info{Name: "p"}) }, "registers no tool and no hook"},
		{"unnamed tool", func() { SetInfo(Info{Name: "p"}); RegisterTool(Tool{Run: run}) }, "a tool has no name"},
		{"no run", func() { SetInfo(Info{Name: "p"}); RegisterTool(Tool{Name: "t"}) }, `RegisterTool "t": Run is nil`},
		{"twice", func() {
			SetInfo(Info{Name: "p"})
			RegisterTool(Tool{Name: "t", Run: run})
			RegisterTool(Tool{Name: "t", Run: run})
		}, "registered twice"},
		{"bad schema JSON", func() {
			SetInfo(Info{Name: "p"})
			RegisterTool(Tool{Name: "t", Run: run, Parameters: json.RawMessage("{")})
		}, "Parameters is not valid JSON"},
		{"untyped args", func() {
			SetInfo(Info{Name: "p"})
			RegisterTool(NewTool("t", "d", func(*Call, struct{ C chan int }) (*Result, error) { return nil, nil }))
		}, "tool t: sdk: arguments type"},
		{"gate without a before hook", func() {
			SetInfo(Info{Name: "p", Gate: true})
			RegisterTool(Tool{Name: "t", Run: run})
		}, "Info.Gate is set but the plugin registers no beforeToolCall hook"},
	} {
		t.Run(c.name, func(t *testing.T) {
			registry = registrations{}
			c.setup()
			_, err := Describe()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// A gate declares itself in the description, which the host's check
// accepts; the check refuses a gate without a beforeToolCall hook.
func TestGateDescription(t *testing.T) {
	saved := registry
	defer func() { registry = saved }()
	registry = registrations{}
	SetInfo(Info{Name: "p", Gate: true})
	RegisterBeforeToolCall(func(*Call, *BeforeInput) (*BeforeOutput, error) { return nil, nil })
	d, err := Describe()
	if err != nil || !d.Gate {
		t.Fatalf("%+v %v", d, err)
	}
	if err := CheckDescription(d); err != nil {
		t.Fatal(err)
	}
	d.Hooks = []string{HookAfterToolCall}
	if err := CheckDescription(d); err == nil || !strings.Contains(err.Error(), "gate is set but hooks does not list") {
		t.Fatalf("err = %v", err)
	}
}

func TestBeforeOutputHelpers(t *testing.T) {
	out, err := Rewrite(map[string]any{"path": "/work/a"})
	if err != nil || string(out.Arguments) != `{"path":"/work/a"}` || out.Block || out.Ask != "" {
		t.Fatalf("%+v %v", out, err)
	}
	for _, bad := range []any{[]int{1}, "x", nil, 3} {
		if _, err := Rewrite(bad); err == nil {
			t.Errorf("Rewrite(%v) accepted", bad)
		}
	}
	if b := Block("no"); !b.Block || b.Reason != "no" {
		t.Fatalf("%+v", b)
	}
	raw, _ := json.Marshal(Ask("ok?"))
	if string(raw) != `{"ask":"ok?"}` {
		t.Fatalf("%s", raw)
	}
}
