package host_test

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"

	"github.com/wasmagent/wasmagent/host/hosttest"
)

// normalizePiLine removes from one event's JSON what may differ between pi
// and us for reasons that are not the loop's (TestMatchesPi and
// TestMatchesPiGenerated; docs/loop.md 17.3 lists them):
//   - timestamps, usage and model labels of the messages the run stamps
//     with the clock: the faux provider estimates usage from the prompt's
//     length and randomises its api name;
//   - the partial message of a message_update: faux mutates it after
//     emitting (docs/loop.md 5.6);
//   - the per-error lines of a validation message, worded by the validator
//     (docs/loop.md 15.4).
func normalizePiLine(line []byte) (string, error) { return normalizeLine(line, piClock) }

// normalizeGoldenLine is normalizePiLine for TestMatchesPi's goldens,
// where every message is the run's: ours are stamped 0 (golden_test.go),
// pi's with the clock.
func normalizeGoldenLine(line []byte) (string, error) { return normalizeLine(line, math.Inf(-1)) }

// normalizeLine removes the stamps of the messages whose timestamp is
// at least clock.
func normalizeLine(line []byte, clock float64) (string, error) {
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
	// Keys in the order each side wrote them: pi's are in the order
	// its code sets them (but a message_update's, rebuilt above).
	v, order, err := hosttest.DecodeOrdered(line)
	if err != nil {
		return "", err
	}
	if typ, _ := v.(map[string]any)["type"].(string); strings.HasPrefix(typ, "harness_") || typ == "message_update" {
		// the harnesses' own lines, not the loop's, and a
		// message_update, rebuilt above: keys sorted
		order = nil
	}
	return order.Encode(normalizePiValue(v, clock)), nil
}

// piClock is the least timestamp counted as the clock's (2001): no given
// message has one so large.
const piClock = 1e12

var validationLines = regexp.MustCompile(`(?s)^(Validation failed for tool "[^"]*":\n).*(\n\nReceived arguments:\n.*)$`)

func normalizePiValue(v any, clock float64) any {
	switch x := v.(type) {
	case map[string]any:
		if _, message := x["role"]; message {
			// Only a message the run stamped (with the clock): a tool's
			// arguments or details holding these keys are compared, and
			// so is every message given to the run, whatever its
			// timestamp, usage and model labels (hosttest.Given).
			if ts, ok := x["timestamp"].(float64); ok && ts >= clock {
				for _, k := range []string{"timestamp", "usage", "api", "provider", "model"} {
					delete(x, k)
				}
			}
		}
		for k, val := range x {
			x[k] = normalizePiValue(val, clock)
		}
		return x
	case []any:
		for i := range x {
			x[i] = normalizePiValue(x[i], clock)
		}
		return x
	case string:
		return validationLines.ReplaceAllString(x, "$1  - …$2")
	}
	return v
}
