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
	var v map[string]any
	if err := json.Unmarshal(line, &v); err != nil {
		return "", err
	}
	if v["type"] == "message_update" {
		ev, _ := v["assistantMessageEvent"].(map[string]any)
		delete(ev, "partial")
		v = map[string]any{"type": "message_update", "assistantMessageEvent": ev}
	}
	b, err := json.Marshal(normalizePiValue(v))
	return string(b), err
}

var validationLines = regexp.MustCompile(`(?s)^(Validation failed for tool "[^"]*":\n).*(\n\nReceived arguments:\n.*)$`)

func normalizePiValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range []string{"timestamp", "usage", "api", "provider", "model"} {
			delete(x, k)
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
