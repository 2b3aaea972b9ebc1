package rpc_test

import (
	"encoding/json"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// The answers TestRPCMatchesPi found different from pi's, checked without
// node: each is pi-coding-agent 0.73.1's answer to the same command.
func TestAnswersAsPi(t *testing.T) {
	c := start(t, scripted.Of(
		scripted.Turn{Content: host.Contents{host.ToolCall{ID: "x", Name: "nosuch", Arguments: json.RawMessage(`{}`)}}},
		scripted.Turn{Content: host.Text("  padded answer \u2028")},
	))
	call := func(id, line string) map[string]any {
		t.Helper()
		c.send(line + "\n")
		return c.next(response(id))
	}
	data := func(r map[string]any) map[string]any { d, _ := r["data"].(map[string]any); return d }

	// before any message: no text is {} (pi's text: undefined), and the
	// session's file is already named
	if r := call("1", `{"id":"1","type":"get_last_assistant_text"}`); r["success"] != true || len(data(r)) != 0 {
		t.Fatalf("no answer yet: %v", r)
	}
	if st := data(call("2", `{"id":"2","type":"get_state"}`)); st["sessionFile"] == nil || st["sessionFile"] == "" {
		t.Fatalf("sessionFile before the first message: %v", st)
	}
	// errors in pi's words
	if r := call("3", `{"id":"3","type":"set_model","provider":"scripted","modelId":"nope"}`); r["error"] != "Model not found: scripted/nope" {
		t.Fatal(r)
	}
	if r := call("4", `{"id":"4","type":"set_session_name","name":" \u00a0\ufeff "}`); r["error"] != "Session name cannot be empty" {
		t.Fatal(r)
	}
	// a name: session_info_changed, trimmed as JavaScript trims
	c.send(`{"id":"5","type":"set_session_name","name":"\ufeff named \u3000"}` + "\n")
	if e := c.next(event("session_info_changed")); e["name"] != "named" {
		t.Fatal(e)
	}
	c.next(response("5"))
	// a run: once agent_end is out, the session is not streaming and a
	// prompt is a new run; the last text is trimmed
	call("6", `{"id":"6","type":"prompt","message":"go"}`)
	c.next(event("agent_end"))
	if st := data(call("7", `{"id":"7","type":"get_state"}`)); st["isStreaming"] != false {
		t.Fatalf("after agent_end: %v", st)
	}
	if r := call("8", `{"id":"8","type":"get_last_assistant_text"}`); data(r)["text"] != "padded answer" {
		t.Fatal(r)
	}
	models := data(call("9", `{"id":"9","type":"get_available_models"}`))["models"].([]any)
	if m := models[0].(map[string]any); m["contextWindow"] != float64(128000) || m["maxTokens"] != float64(16384) {
		t.Fatalf("pi's defaults for a model that does not say: %v", m)
	}
}
