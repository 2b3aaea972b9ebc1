package host_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
)

// TestRule6_4_3_SchemaAsTypeBoxReadsIt checks validation against schemas
// as pi-ai 0.73.1's validator (TypeBox 1.4) reads them, each answer being
// pi's own (TestValidationMatchesPi compares generated ones with pi
// itself): known formats are asserted, unknown ones pass; draft-07's
// tuples and dependencies apply whatever $schema says; a keyword of the
// wrong type is skipped, not a broken schema; multipleOf has TypeBox's
// tolerance; arguments that are no object are passed on unchecked when
// their coercion fails; keys come in a JavaScript object's order. On the
// code before, each of these either failed to compile
// (every call an error) or answered otherwise.
//
// These schemas are compiled as the loop compiles them (CompileForCall);
// CompileSchema, the check at load, still refuses what the meta-schema
// refuses (TestRule6_4_3_LoopTakesWhatPiTakes).
func TestRule6_4_3_SchemaAsTypeBoxReadsIt(t *testing.T) {
	prop := func(s string) string { return `{"type":"object","properties":{"v":` + s + `}}` }
	for _, c := range []struct {
		schema, args string
		ok           bool
		want         string // the validated arguments, when ok
	}{
		{prop(`{"type":"string","format":"email"}`), `{"v":"nope"}`, false, ""},
		{prop(`{"type":"string","format":"email"}`), `{"v":"A@B.COM"}`, true, `{"v":"A@B.COM"}`},
		{prop(`{"type":"string","format":"uuid"}`), `{"v":"123e4567-e89b-12d3-a456-426614174000"}`, true, `{"v":"123e4567-e89b-12d3-a456-426614174000"}`},
		{prop(`{"type":"string","format":"date-time"}`), `{"v":"2020-01-01"}`, false, ""},
		{prop(`{"type":"string","format":"date"}`), `{"v":"2021-02-29"}`, false, ""},
		{prop(`{"type":"string","format":"ipv4"}`), `{"v":"1.2.3"}`, false, ""},
		{prop(`{"type":"string","format":"uri"}`), `{"v":"nope"}`, false, ""},
		{prop(`{"type":"string","format":"whatever"}`), `{"v":"x"}`, true, `{"v":"x"}`},
		{prop(`{"type":"string","format":"semver"}`), `{"v":"nope"}`, true, `{"v":"nope"}`},
		{prop(`{"type":"array","items":[{"type":"integer"},{"type":"string"}]}`), `{"v":["1",2]}`, true, `{"v":[1,"2"]}`},
		{prop(`{"type":"array","items":[{"type":"integer"}],"additionalItems":false}`), `{"v":[1,2]}`, false, ""},
		{`{"type":"object","dependencies":{"a":["b"]}}`, `{"a":1}`, false, ""},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"t":{"type":"array","items":[{"type":"integer"}]}}}`, `{"t":["1"]}`, true, `{"t":[1]}`},
		{prop(`{"type":"number","exclusiveMinimum":true,"minimum":0}`), `{"v":0}`, true, `{"v":0}`},
		{prop(`{"type":"number","maximum":"5"}`), `{"v":7}`, true, `{"v":7}`},
		{`{"type":"object","required":"a"}`, `{}`, true, `{}`},
		{`{"type":"objekt"}`, `{}`, true, `{}`},
		{`{"type":"object","required":["a","a"]}`, `{}`, false, ""},
		{`{"type":"object","$defs":5}`, `{}`, true, `{}`},
		{`{"type":"object","$defs":{"a":5},"properties":{"x":{"type":"integer"}}}`, `{"x":"1"}`, true, `{"x":1}`},
		{prop(`{"type":"number","multipleOf":0.1}`), `{"v":0.30000000000000004}`, true, `{"v":0.30000000000000004}`},
		{prop(`{"type":"number","multipleOf":0.01}`), `{"v":1e-11}`, true, `{"v":1e-11}`},
		{prop(`{"type":"number","multipleOf":3}`), `{"v":7}`, false, ""},
		{prop(`{"type":"string","minLength":2}`), `{"v":"😀"}`, false, ""},
		// Arguments that are no object: coerced if the coercion passes,
		// else passed on as they came, unchecked (pi-ai does so).
		{`{"type":"string"}`, `5`, true, `"5"`},
		{`{"type":"string","minLength":3}`, `5`, true, `5`},
		{`{"type":"string","minLength":3}`, `"x"`, false, ""},
		// Keys in a JavaScript object's order: array indexes first.
		{`{"type":"object"}`, `{"b":1,"7":2,"a":{"10":1,"2":0,"x":3,"01":4,"4294967295":5,"4294967294":6}}`, true,
			`{"7":2,"b":1,"a":{"2":0,"10":1,"4294967294":6,"x":3,"01":4,"4294967295":5}}`},
	} {
		s, err := host.CompileForCall(json.RawMessage(c.schema))
		if err != nil {
			t.Errorf("%s: does not compile: %v", c.schema, err)
			continue
		}
		got, err := s.ValidateArguments("t", json.RawMessage(c.args))
		switch {
		case c.ok && err != nil:
			t.Errorf("%s with %s: %v, want %s", c.schema, c.args, err, c.want)
		case c.ok && string(got) != c.want:
			t.Errorf("%s with %s: got %s, want %s", c.schema, c.args, got, c.want)
		case !c.ok && (err == nil || !strings.HasPrefix(err.Error(), `Validation failed for tool "t":`)):
			t.Errorf("%s with %s: got %s, %v; want a validation failure", c.schema, c.args, got, err)
		}
	}
}

// TestRule6_4_3_LoopTakesWhatPiTakes: a schema the 2020-12 meta-schema
// refuses but pi's validator reads (a keyword of the wrong type, an
// unknown type name) is refused by CompileSchema, the check plugins get
// at load, and runs in the loop as in pi: the call is validated and
// coerced, not answered with a broken schema.
func TestRule6_4_3_LoopTakesWhatPiTakes(t *testing.T) {
	schema := `{"type":"object","properties":{"n":{"type":"number","minimum":"5"},"k":{"type":"nonsense"}},"required":"n"}`
	if _, err := host.CompileSchema(json.RawMessage(schema)); err == nil {
		t.Fatal("CompileSchema took a schema its meta-schema refuses")
	}
	lr := newLoopRun(t, []host.Tool{hosttest.Tool("t", schema, func(_ context.Context, _ string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		return host.ToolResult{Content: host.Text(string(args))}, nil
	})}, calls(call("c1", "t", `{"n":"7","k":[1]}`)), say("ok")).run(user("go"))
	if text, isErr := resultText(t, lr.rec, "c1"); isErr || text != `{"n":7,"k":[1]}` {
		t.Fatalf("result %q (error %v), want the coerced arguments", text, isErr)
	}
}
