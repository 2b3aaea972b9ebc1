package rpc_test

import (
	"fmt"
	"strings"

	"github.com/wasmagent/wasmagent/host/hosttest"
)

// rpcNorm normalises one side's output lines for TestRPCMatchesPi. What it
// hides, and why, is the list in docs/rpc.md ("Compared with pi"):
//
//   - what differs by run and by machine: timestamps, session ids, file
//     paths, entry ids (numbered by first appearance), the provider's name
//     and base URL (each side has its own server and configuration);
//   - wording that comes from each side's HTTP and JSON libraries: a
//     message's errorMessage and the reason after "Failed to parse
//     command: " (the fields stay, and whether they are there);
//   - the deliberate differences of docs/rpc.md: no id dropped from the
//     answer to an unknown command (pi drops it), get_state's extra
//     autoRetryEnabled and false autoCompactionEnabled, the model's
//     input, stats without contextUsage;
//   - the message of a message_update and its event's partial (pi writes
//     them as they are when it gets to writing, not as they were at the
//     update), but whether their tool calls' arguments are objects;
//   - unless strict, a tool call's partialArgs and streamIndex (pi-ai's
//     scratch fields, which its partial messages may show).
//
// JSON objects' keys are compared in the order each side wrote them
// (hosttest.JSONOrder): pi's come in the order its code sets them.
type rpcNorm struct {
	strict  bool
	entries map[string]string
	// loose: the ids of responses where wasmagent deliberately answers
	// otherwise; only that they came is compared (diffOp.Loose)
	loose map[string]bool
	// badArgs: the ids of the calls whose arguments the server sent as
	// text that is not JSON (pi parses what it can, wasmagent keeps the
	// text: docs/rpc.md)
	badArgs map[string]bool
}

func newRPCNorm(strict bool) *rpcNorm { return &rpcNorm{strict: strict, entries: map[string]string{}} }

// line returns v normalised as JSON, its objects' keys in order, or ""
// when the line is one the comparison leaves out (an adapter
// difference).
func (n *rpcNorm) line(v map[string]any, order hosttest.JSONOrder) string {
	if v["type"] == "message_update" {
		ev, _ := v["assistantMessageEvent"].(map[string]any)
		// pi writes an update's message when it gets to it, not as it
		// was at the update: what it holds by then depends on pi's
		// scheduling. What is compared is that its tool calls'
		// arguments are objects, as pi's always are.
		v["argumentsAreObjects"] = n.argumentsAreObjects(v["message"])
		delete(v, "message")
		delete(ev, "partial")
	}
	if v["type"] == "response" {
		n.response(v)
	}
	n.walk(v)
	return order.Encode(v)
}

func (n *rpcNorm) response(v map[string]any) {
	if id, _ := v["id"].(string); n.loose[id] {
		delete(v, "success")
		delete(v, "error")
		delete(v, "data")
		return
	}
	errText, _ := v["error"].(string)
	if strings.HasPrefix(errText, "Unknown command: ") {
		delete(v, "id")
	}
	if rest, ok := strings.CutPrefix(errText, "Failed to parse command: "); ok && rest != "" {
		v["error"] = "Failed to parse command: <reason>"
	}
	if rest, ok := strings.CutPrefix(errText, "Model not found: "); ok {
		_, id, _ := strings.Cut(rest, "/")
		v["error"] = "Model not found: <provider>/" + id
	}
	data, _ := v["data"].(map[string]any)
	switch v["command"] {
	case "get_state":
		delete(data, "autoRetryEnabled")
		delete(data, "autoCompactionEnabled")
	case "get_session_stats":
		delete(data, "contextUsage")
	}
}

func (n *rpcNorm) walk(x any) {
	switch x := x.(type) {
	case []any:
		for _, e := range x {
			n.walk(e)
		}
	case map[string]any:
		for k, e := range x {
			switch k {
			case "timestamp":
				x[k] = 0
			case "sessionId", "sessionFile", "errorMessage", "baseUrl":
				if s, ok := e.(string); ok && s != "" {
					x[k] = "<" + k + ">"
				}
			case "provider":
				x[k] = "<provider>"
			case "entryId", "parentId":
				if s, ok := e.(string); ok {
					if _, seen := n.entries[s]; !seen {
						n.entries[s] = fmt.Sprintf("<entry %d>", len(n.entries)+1)
					}
					x[k] = n.entries[s]
				}
			case "input":
				if _, isModel := x["baseUrl"]; isModel {
					x[k] = "<" + k + ">"
				}
			case "thinkingLevelMap":
				// pi's models.json says the model takes xhigh
				if _, isModel := x["baseUrl"]; isModel {
					delete(x, k)
				}
			case "arguments", "args":
				if (x["type"] == "toolCall" && n.badArgs[fmt.Sprint(x["id"])]) || n.badArgs[fmt.Sprint(x["toolCallId"])] {
					x[k] = "<not JSON>"
				} else {
					n.walk(e)
				}
			case "partialArgs", "streamIndex":
				if !n.strict && x["type"] == "toolCall" {
					delete(x, k)
				}
			default:
				n.walk(e)
			}
		}
	}
}

func (n *rpcNorm) argumentsAreObjects(m any) bool {
	msg, _ := m.(map[string]any)
	blocks, _ := msg["content"].([]any)
	for _, b := range blocks {
		if b, _ := b.(map[string]any); b["type"] == "toolCall" && !n.badArgs[fmt.Sprint(b["id"])] {
			if _, ok := b["arguments"].(map[string]any); !ok {
				return false
			}
		}
	}
	return true
}
