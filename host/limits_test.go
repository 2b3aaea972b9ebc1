package host_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// growing is an echo tool whose PrepareArguments makes the arguments
// larger (pad bytes of spaces before the closing brace), to reach the cap
// on validated arguments without reaching the cap on raw ones.
type growing struct {
	*host.ToolFunc
	pad int
}

func (g growing) PrepareArguments(args json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{"s":"` + strings.Repeat("x", g.pad) + `"}`), nil
}

// The cap on arguments holds at the cap and one byte over, for the
// arguments as the model sent them and as validated.
func TestArgumentCap(t *testing.T) {
	const limit = 1000
	raw := func(n int) string { return `{"s":"` + strings.Repeat("x", n-8) + `"}` } // n bytes
	for _, c := range []struct {
		name     string
		args     string
		pad      int // > 0: a preparer makes validated arguments of pad+8 bytes
		ran      bool
		sentence string
	}{
		{"raw at the cap", raw(limit), 0, true, ""},
		{"raw one byte over", raw(limit + 1), 0, false, "the arguments for t are 1,001 bytes, and the host accepts at most 1,000 bytes"},
		{"validated at the cap", `{}`, limit - 8, true, ""},
		{"validated one byte over", `{}`, limit - 7, false, "the arguments for t are, once validated, 1,001 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if len(c.args) > limit+1 || (c.pad == 0 && strings.Contains(c.name, "at the cap") && len(c.args) != limit) {
				t.Fatalf("bad case: %d bytes", len(c.args))
			}
			var tool host.Tool = hosttest.Echo("t")
			if c.pad > 0 {
				tool = growing{hosttest.Echo("t"), c.pad}
			}
			m := scripted.Of(calls(host.ToolCall{ID: "c000", Name: "t", Arguments: json.RawMessage(c.args)}), say("done"))
			msgs, err := host.RunLoop(context.Background(), []host.Message{user("q")}, &host.Context{Tools: []host.Tool{tool}}, &host.Config{Model: m, MaxArgumentBytes: limit}, func(context.Context, host.Event) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			ran := 0
			if c.ran {
				ran = 1
			}
			checkAnswered(t, msgs, 1, ran, c.sentence)
		})
	}
}
