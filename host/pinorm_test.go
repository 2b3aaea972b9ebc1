package host_test

import (
	"encoding/json"
	"regexp"
)

// normalizePiLine removes from one event's JSON what may differ between pi
// and us for reasons that are not the loop's (TestMatchesPi and
// TestMatchesPiGenerated; docs/loop.md 17.3 lists them):
//   - timestamps, usage and model labels: the faux provider stamps the clock,
//     estimates usage from the prompt's length and randomises its api name;
//   - the partial message of a message_update: faux mutates it after
//     emitting (docs/loop.md 5.6);
//   - the per-error lines of a validation message, worded by the validator
//     (docs/loop.md 15.4).
func normalizePiLine(line []byte) (string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(line, &top); err != nil {
		return "", err
	}
	if string(top["type"]) == `"message_update"` {
		// Only the stream event without its partial is compared: decoding
		// just that keeps the comparison cheap (the partial and the
		// message are most of every line).
		var ev map[string]json.RawMessage
		if err := json.Unmarshal(top["assistantMessageEvent"], &ev); err != nil {
			return "", err
		}
		delete(ev, "partial")
		top = map[string]json.RawMessage{"type": top["type"]}
		top["assistantMessageEvent"], _ = json.Marshal(ev)
		line, _ = json.Marshal(top)
	}
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return "", err
	}
	b, err := json.Marshal(normalizePiValue(v))
	return string(b), err
}

var validationLines = regexp.MustCompile(`(?s)^(Validation failed for tool "[^"]*":\n).*(\n\nReceived arguments:\n.*)$`)

func normalizePiValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if _, message := x["role"]; message {
			// Only a message's own fields: a tool's arguments or details
			// holding these keys are compared.
			for _, k := range []string{"timestamp", "usage", "api", "provider", "model"} {
				delete(x, k)
			}
		}
		for k, val := range x {
			x[k] = normalizePiValue(val)
		}
		return x
	case []any:
		for i := range x {
			x[i] = normalizePiValue(x[i])
		}
		return x
	case string:
		return validationLines.ReplaceAllString(x, "$1  - …$2")
	}
	return v
}
