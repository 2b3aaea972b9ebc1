package wasmtool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// resultFields are the members of a result (and of an update) the ABI
// gives a meaning to; textPart and the blocks' fields are inside content.
var resultFields = []string{"content", "details", "isError", "terminate"}

// resultShape ends an error about a result that is not one: what one
// looks like, for the author of a plugin written without a wasmagent SDK
// (an Extism plugin answering its own JSON).
const resultShape = `; a result is {"content": [{"type": "text", "text": "…"}]}, details, isError and terminate optional (docs/abi.md, "Result")`

// decodeResult decodes an execute output, an update or the head of an
// output in parts into v, and returns the members it has beyond the
// ABI's, as one JSON object (nil when there are none): pi passes a
// tool's result on as the object the tool returned, so they reach
// tool_execution_end and the after hooks (host.ToolResult.Extra). A
// member whose name is one of the ABI's misspelt ("is_error",
// "Terminate") is an error, as every unknown field was before extra
// members passed: a typo must not turn an error result into a success.
// Content blocks stay strict (blockList).
func decodeResult(b []byte, v any) (json.RawMessage, error) {
	if !json.Valid(b) {
		return nil, fmt.Errorf("the output is not JSON: %.120q%s", b, resultShape)
	}
	if err := checkJSON(b); err != nil {
		return nil, err
	}
	b = validText(b)
	// The members first: encoding/json would take "IsError" for isError.
	extra, err := extraMembers(b)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("the output does not fit the ABI: %w", err)
	}
	return extra, nil
}

// extraMembers returns the members of the JSON object b that are not
// resultFields, in their order, as one object.
func extraMembers(b []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("the output does not fit the ABI: not a JSON object" + resultShape)
	}
	var out []byte
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
		if isResultField(name) {
			continue
		}
		if field, ok := misspelt(name); ok {
			return nil, fmt.Errorf("the output does not fit the ABI: unknown field %q (%q misspelt?)", name, field)
		}
		if out == nil {
			out = append(out, '{')
		} else {
			out = append(out, ',')
		}
		key, _ := json.Marshal(name)
		out = append(out, key...)
		out = append(out, ':')
		var compact bytes.Buffer
		if err := json.Compact(&compact, value); err != nil {
			return nil, err
		}
		out = append(out, compact.Bytes()...)
	}
	if out == nil {
		return nil, nil
	}
	return append(out, '}'), nil
}

func isResultField(name string) bool {
	for _, f := range resultFields {
		if name == f {
			return true
		}
	}
	return false
}

// misspelt says whether name is one of resultFields written another way:
// in other case, or with underscores or hyphens ("is_error", "Content").
func misspelt(name string) (string, bool) {
	folded := strings.NewReplacer("_", "", "-", "").Replace(name)
	for _, f := range resultFields {
		if strings.EqualFold(folded, f) {
			return f, true
		}
	}
	return "", false
}
