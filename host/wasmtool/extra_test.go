package wasmtool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/wasmtool"
)

// A plugin's result reaches tool_execution_end as the object it returned,
// as a pi tool's does: members beyond the ABI's of every JSON type, in
// any order, and details that are null (generated). On the old main the
// extra members were errors and null details were dropped.
func TestResultPassesThroughWhole(t *testing.T) {
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 3))
		g := hosttest.Given{R: r}
		members := []string{`"content":[{"type":"text","text":"x"}]`}
		if r.IntN(2) == 0 {
			members = append(members, `"details":`+g.Pick(hosttest.JSONValues))
		}
		if r.IntN(2) == 0 {
			members = append(members, `"terminate":`+g.Pick([]string{"true", "false"}))
		}
		for _, k := range r.Perm(len(hosttest.ExtraNames))[:1+r.IntN(3)] {
			if name := hosttest.ExtraNames[k]; name != "isError" { // the ABI's: a failure
				members = append(members, fmt.Sprintf("%q:%s", name, g.Pick(hosttest.JSONValues)))
			}
		}
		r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		out := "{" + strings.Join(members, ",") + "}"
		res, isError, err := wasmtool.ParseResult([]byte(out))
		if err != nil || isError {
			t.Fatalf("seed %d: %v %v\n%s", seed, err, isError, out)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if g, w := canonical(t, b), canonical(t, []byte(out)); g != w {
			t.Fatalf("seed %d: the plugin returned\n%s\ntool_execution_end's result is\n%s", seed, w, g)
		}
	}
}

// A misspelt field of the ABI is still an error, as every unknown field
// was: "is_error" passed along as an extra member would turn a failure
// into a success.
func TestMisspeltResultFieldsAreErrors(t *testing.T) {
	for _, name := range []string{"is_error", "IsError", "iserror", "Content", "DETAILS", "terminate_", "is-error"} {
		out := fmt.Sprintf(`{"content":[],%q:true}`, name)
		if _, _, err := wasmtool.ParseResult([]byte(out)); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("unknown field %q", name)) {
			t.Errorf("%s: err = %v", out, err)
		}
	}
}

func canonical(t *testing.T, data []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Through the loop, a plugin's extra members reach tool_execution_end;
// an after hook that answers null keeps them (a pi hook returning
// undefined), one that answers {} drops them (pi rebuilds the result);
// the result message never has them. On the old main the result was an
// error (unknown field) and {} and null alike rebuilt it.
func TestPluginResultThroughTheLoop(t *testing.T) {
	for _, c := range []struct{ after, want string }{
		{"null", `{"content":[{"type":"text","text":"x"}],"details":null,"meta":{"a":1},"tags":[]}`},
		{"{}", `{"content":[{"type":"text","text":"x"}],"details":null}`},
	} {
		t.Run(c.after, func(t *testing.T) {
			p, err := constPlugin(t, map[string]string{
				"describe":        `{"abi":1,"name":"x","tools":[{"name":"t","description":"d"}],"hooks":["afterToolCall"]}`,
				"execute":         `{"content":[{"type":"text","text":"x"}],"details":null,"meta":{"a":1},"tags":[]}`,
				"after_tool_call": c.after,
			})
			if err != nil {
				t.Fatal(err)
			}
			m := scripted.Of(scripted.Turn{Content: host.Contents{host.ToolCall{ID: "c1", Name: "t", Arguments: json.RawMessage(`{}`)}}},
				scripted.Turn{Content: host.Text("done")})
			rec := hosttest.NewRecorder()
			c2 := &host.Context{Tools: p.Tools()}
			if _, err := host.RunLoop(context.Background(), []host.Message{&host.UserMessage{Content: host.Text("go")}}, c2,
				&host.Config{Model: m, AfterToolCall: []host.AfterToolCallHook{p.AfterToolCall()}}, rec.Sink); err != nil {
				t.Fatal(err)
			}
			for _, e := range rec.Events() {
				switch e := e.(type) {
				case host.ToolExecutionEndEvent:
					b, _ := json.Marshal(e.Result)
					if string(b) != c.want || e.IsError {
						t.Errorf("tool_execution_end result %s (isError %t), want %s", b, e.IsError, c.want)
					}
				case host.MessageEndEvent:
					if r, ok := e.Message.(*host.ToolResultMessage); ok {
						if b, _ := json.Marshal(r); strings.Contains(string(b), "meta") || !strings.Contains(string(b), `"details":null`) {
							t.Errorf("result message %s", b)
						}
					}
				}
			}
		})
	}
}
