package wasmtool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/sdk"
)

// A hook's answer is read as pi reads what a hook returns (docs/hooks.md,
// RATIONALE.md "Why is a hook's answer read as pi reads a hook's return
// value?"): a value that is no object has no fields (falsy: no answer;
// truthy: an answer of no field), a member is taken by its exact name
// (the last of a name given twice, as JSON.parse does), a null member is
// an absent one, a member of another kind than pi's type is read as pi's
// code reads it (`block` and `isError` by truthiness, `terminate` only
// when it is true), and a member pi does not read is ignored. What pi
// would pass on but wasmagent cannot hold, and a member that looks like
// one of the answer's fields misspelt, is a warning, not a failure.

// answer is a hook's answer decoded: its members by name, and what was
// noticed while reading it.
type answer struct {
	members  map[string]json.RawMessage // nil: not an object
	truthy   bool                       // JavaScript's truthiness of the answer
	warnings []string
}

// readAnswer decodes a hook's output; fields are the answer's own
// members, which a member named like one of them otherwise (case, "_",
// "-") is warned about.
func readAnswer(out []byte, fields []string) (*answer, error) {
	if err := checkJSON(out); err != nil {
		return nil, err
	}
	out = validText(bytes.TrimSpace(out))
	a := &answer{}
	if out[0] != '{' {
		var v any
		json.Unmarshal(out, &v)
		a.truthy = truthy(v)
		if a.truthy {
			a.warn("the answer is %.40s, not an object: pi reads no field of it", out)
		}
		return a, nil
	}
	a.truthy, a.members = true, map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.Token() // the opening brace
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		a.members[name] = value
	}
	for name := range a.members {
		if field, ok := misspeltOf(name, fields); ok {
			a.warn("unknown field %.60q ignored (%q misspelt?)", name, field)
		}
	}
	return a, nil
}

func (a *answer) warn(format string, args ...any) {
	a.warnings = append(a.warnings, fmt.Sprintf(format, args...))
}

// get returns member name, nil when it is absent or null.
func (a *answer) get(name string) json.RawMessage {
	v := a.members[name]
	if string(v) == "null" {
		return nil
	}
	return v
}

// truthyMember is JavaScript's truthiness of member name, with a warning
// when it is not a boolean; absent and null are false.
func (a *answer) truthyMember(name string) bool {
	v := a.get(name)
	if v == nil {
		return false
	}
	var x any
	json.Unmarshal(v, &x)
	if _, ok := x.(bool); !ok {
		a.warn("%s is %.40s, not a boolean: taken as %t (JavaScript's truthiness, as pi takes it)", name, v, truthy(x))
	}
	return truthy(x)
}

// boolMember is member name as a *bool: nil when absent or null.
// isError is any value's truthiness (pi passes the value on, and a
// truthy one marks the result an error); terminate is true only when it
// is true (pi ends a batch on `terminate === true` alone).
func (a *answer) boolMember(name string) *bool {
	v := a.get(name)
	if v == nil {
		return nil
	}
	var x any
	json.Unmarshal(v, &x)
	if b, ok := x.(bool); ok {
		return &b
	}
	b := name != "terminate" && truthy(x)
	a.warn("%s is %.40s, not a boolean: taken as %t, as pi acts on it", name, v, b)
	return &b
}

// truthy is JavaScript's truthiness of a decoded JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	}
	return true
}

// misspeltOf says whether name is one of fields written another way: in
// other case, or with underscores or hyphens ("is_error", "Block").
func misspeltOf(name string, fields []string) (string, bool) {
	folded := strings.NewReplacer("_", "", "-", "").Replace(name)
	for _, f := range fields {
		if name != f && strings.EqualFold(folded, f) {
			return f, true
		}
	}
	return "", false
}

// beforeFields are the members of a before_tool_call answer.
var beforeFields = []string{"block", "reason", "arguments", "ask"}

// afterFields are the members of an after_tool_call answer.
var afterFields = []string{"content", "details", "isError", "terminate"}

// parseBefore decodes a before_tool_call output as pi reads a
// beforeToolCall result: a truthy block blocks, with the reason when it
// is truthy (a reason that is no string is told as its JSON); anything
// else allows. arguments (a JSON object) and ask (a string) are
// wasmagent's: of another kind they are errors.
func parseBefore(out []byte) (*host.BeforeToolCallResult, []string, error) {
	a, err := readAnswer(out, beforeFields)
	if err != nil {
		return nil, nil, err
	}
	res := &host.BeforeToolCallResult{}
	if a.members == nil {
		return res, a.warnings, nil
	}
	res.Block = a.truthyMember("block")
	if v := a.get("reason"); v != nil {
		var x any
		json.Unmarshal(v, &x)
		switch s, ok := x.(string); {
		case ok:
			res.Reason = s
		case truthy(x):
			res.Reason = string(v)
			a.warn("reason is %.40s, not a string: told as its JSON", v)
		}
	}
	if v := a.get("arguments"); v != nil {
		if v[0] != '{' {
			return nil, nil, fmt.Errorf("arguments is %.40s, not a JSON object", v)
		}
		res.Args = v
	}
	if v := a.get("ask"); v != nil {
		if err := json.Unmarshal(v, &res.Ask); err != nil {
			return nil, nil, fmt.Errorf("ask is %.40s, not a string", v)
		}
	}
	return res, a.warnings, nil
}

// parseAfter decodes an after_tool_call output as pi reads an
// afterToolCall result. A falsy output (null, false, 0, "") answers
// nothing (nil): the result stays as it is, the tool's extra members
// too, as when a pi hook returns undefined; any other rebuilds it, each
// field absent or null keeping the result's value. content must be an
// array of the ABI's blocks (pi would pass anything on, to fail at the
// model).
func parseAfter(out []byte) (*host.AfterToolCallResult, []string, error) {
	a, err := readAnswer(out, afterFields)
	if err != nil {
		return nil, nil, err
	}
	if !a.truthy {
		return nil, a.warnings, nil
	}
	res := &host.AfterToolCallResult{IsError: a.boolMember("isError"), Terminate: a.boolMember("terminate")}
	if v := a.get("content"); v != nil {
		var blocks blockList[sdk.Content]
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&blocks); err != nil {
			return nil, nil, fmt.Errorf("the output does not fit the ABI: %w", err)
		}
		cs, err := HostContent(blocks)
		if err != nil {
			return nil, nil, err
		}
		res.Content = cs
	}
	if v := a.get("details"); v != nil {
		res.Details = v
	}
	return res, a.warnings, nil
}
