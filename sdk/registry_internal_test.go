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
