package rpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// askingAgent is an Agent whose model calls "write" (n calls in one
// turn) then says "done"; a before hook named "guard" asks about every
// call. ran counts the calls that ran.
func askingAgent(n int, timeout time.Duration, ran *atomic.Int32) host.AgentOptions {
	var calls host.Contents
	for i := range n {
		calls = append(calls, host.ToolCall{ID: fmt.Sprint("w", i), Name: "write", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"f%d"}`, i))})
	}
	write := hosttest.Tool("write", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
		ran.Add(1)
		return host.ToolResult{Content: host.Text("written")}, nil
	})
	guard := host.WithBeforeOptions(host.BeforeToolCallFunc(func(_ context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
		return &host.BeforeToolCallResult{Ask: "Write " + string(c.Args) + "?"}, nil
	}), host.HookOptions{Name: "guard"})
	return host.AgentOptions{
		Model:           scripted.Of(scripted.Turn{Content: calls}, scripted.Turn{Content: host.Text("done")}),
		Tools:           []host.Tool{write},
		BeforeToolCall:  []host.BeforeToolCallHook{guard},
		ApprovalTimeout: timeout,
	}
}

func isConfirm(v map[string]any) bool {
	return v["type"] == "extension_ui_request" && v["method"] == "confirm"
}

// toolResults returns the text and isError of each toolResult of an
// agent_end event, in order.
func toolResults(t *testing.T, end map[string]any) (texts []string, errs []bool) {
	t.Helper()
	for _, m := range end["messages"].([]any) {
		msg := m.(map[string]any)
		if msg["role"] != "toolResult" {
			continue
		}
		texts = append(texts, msg["content"].([]any)[0].(map[string]any)["text"].(string))
		errs = append(errs, msg["isError"] == true)
	}
	return texts, errs
}

// A hook's question reaches the client as pi's confirm request; the
// client's answer decides: confirmed true runs the call, false and
// cancelled decline it, and the model is told why.
func TestAskAnswered(t *testing.T) {
	for _, tc := range []struct {
		answer string // the extension_ui_response's fields after the id
		runs   bool
		reason string
	}{
		{`"confirmed":true`, true, "written"},
		{`"confirmed":false`, false, "answer: no"},
		{`"cancelled":true`, false, "answer: no answer: cancelled by the client"},
		{`"cancelled":true,"confirmed":true`, false, "cancelled by the client"}, // pi: cancelled wins
		{`"cancelled":false,"confirmed":true`, true, "written"},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			var ran atomic.Int32
			c := startAgent(t, askingAgent(1, time.Minute, &ran))
			c.send(`{"id":"p","type":"prompt","message":"go"}` + "\n")
			c.next(response("p"))
			req := c.next(isConfirm)
			id, _ := req["id"].(string)
			title, _ := req["title"].(string)
			message, _ := req["message"].(string)
			timeout, _ := req["timeout"].(float64)
			if id == "" || !strings.Contains(title, "guard asks: Write ") || !strings.Contains(title, `"f0"`) ||
				!strings.HasPrefix(message, "write ") || timeout <= 0 || timeout > 60000 {
				t.Fatalf("request: %v", req)
			}
			if ran.Load() != 0 {
				t.Fatal("the call ran before the answer")
			}
			c.send(`{"type":"extension_ui_response","id":"` + id + `",` + tc.answer + "}\n")
			texts, errs := toolResults(t, c.next(event("agent_end")))
			if len(texts) != 1 || !strings.Contains(texts[0], tc.reason) || errs[0] == tc.runs {
				t.Fatalf("results %q, isError %v; want %q", texts, errs, tc.reason)
			}
			if got := ran.Load() == 1; got != tc.runs {
				t.Fatalf("ran: %v, want %v", got, tc.runs)
			}
		})
	}
}

// A response that answers no question — malformed, without an id, with an
// id nobody asked — is answered success:false with the reason, and the
// question stays pending until a real answer.
func TestAskBadResponses(t *testing.T) {
	var ran atomic.Int32
	c := startAgent(t, askingAgent(1, time.Minute, &ran))
	c.send(`{"id":"p","type":"prompt","message":"go"}` + "\n")
	// The prompt's response may come before or after the question.
	c.next(response("p"))
	id := c.next(isConfirm)["id"].(string)
	for _, tc := range []struct{ line, want string }{
		{`{"type":"extension_ui_response","id":"nope","confirmed":true}`, "no question is waiting"},
		{`{"type":"extension_ui_response","confirmed":true}`, `needs the "id"`},
		{`{"type":"extension_ui_response","id":7,"confirmed":true}`, `needs the "id"`},
		{`{"type":"extension_ui_response","id":"` + id + `"}`, `"confirmed": true or false`},
		{`{"type":"extension_ui_response","id":"` + id + `","value":"yes"}`, `"confirmed": true or false`},
		{`{"type":"extension_ui_response","id":"` + id + `","cancelled":false}`, `"confirmed": true or false`},
		{`{"type":"extension_ui_response","id":"` + id + `","confirmed":"yes"}`, `field "confirmed"`},
		{`{"type":"extension_ui_response","id":"` + id + `","confirmed":true`, "Failed to parse command"},
	} {
		c.send(tc.line + "\n")
		r := c.next(event("response"))
		if r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), tc.want) {
			t.Errorf("%s: %v", tc.line, r)
		}
	}
	c.send(`{"id":"s","type":"get_state"}` + "\n")
	if st := c.next(response("s"))["data"].(map[string]any); st["isStreaming"] != true || ran.Load() != 0 {
		t.Fatalf("the question should still be pending: %v, ran %d", st, ran.Load())
	}
	c.send(`{"type":"extension_ui_response","id":"` + id + `","confirmed":true}` + "\n")
	if texts, _ := toolResults(t, c.next(event("agent_end"))); len(texts) != 1 || texts[0] != "written" {
		t.Fatal(texts)
	}
	// A second answer to the same question answers nothing.
	c.send(`{"type":"extension_ui_response","id":"` + id + `","confirmed":false}` + "\n")
	if r := c.next(event("response")); r["success"] != false || !strings.Contains(r["error"].(string), "no question is waiting") {
		t.Fatal(r)
	}
}

// An unanswered question is declined at the approval timeout; an answer
// after it answers nothing.
func TestAskTimesOut(t *testing.T) {
	var ran atomic.Int32
	c := startAgent(t, askingAgent(1, 50*time.Millisecond, &ran))
	c.send(`{"id":"p","type":"prompt","message":"go"}` + "\n")
	c.next(response("p"))
	req := c.next(isConfirm)
	if timeout, ok := req["timeout"].(float64); !ok || timeout <= 0 || timeout > 50 {
		t.Fatalf("timeout: %v", req)
	}
	texts, errs := toolResults(t, c.next(event("agent_end")))
	if len(texts) != 1 || !errs[0] || !strings.Contains(texts[0], "timed out") || ran.Load() != 0 {
		t.Fatalf("%q %v", texts, errs)
	}
	c.send(`{"type":"extension_ui_response","id":"` + req["id"].(string) + `","confirmed":true}` + "\n")
	if r := c.next(event("response")); r["success"] != false {
		t.Fatal(r)
	}
}

// Each call of a batch asks under its own id, and each answer decides its
// own call.
func TestAskEachCall(t *testing.T) {
	var ran atomic.Int32
	c := startAgent(t, askingAgent(2, time.Minute, &ran))
	c.send(`{"id":"p","type":"prompt","message":"go"}` + "\n")
	c.next(response("p"))
	answers := map[string]string{"f0": "false", "f1": "true"}
	seen := map[string]bool{}
	for range 2 {
		req := c.next(isConfirm)
		id := req["id"].(string)
		if seen[id] {
			t.Fatalf("id %s asked twice", id)
		}
		seen[id] = true
		file := "f0"
		if strings.Contains(req["title"].(string), `"f1"`) {
			file = "f1"
		}
		c.send(`{"type":"extension_ui_response","id":"` + id + `","confirmed":` + answers[file] + "}\n")
	}
	texts, errs := toolResults(t, c.next(event("agent_end")))
	if len(texts) != 2 || !errs[0] || !strings.Contains(texts[0], "answer: no") || errs[1] || texts[1] != "written" || ran.Load() != 1 {
		t.Fatalf("%q %v", texts, errs)
	}
}

// Abort while a question is pending ends the run; the question is
// withdrawn.
func TestAskAborted(t *testing.T) {
	var ran atomic.Int32
	c := startAgent(t, askingAgent(1, time.Minute, &ran))
	c.send(`{"id":"p","type":"prompt","message":"go"}` + "\n")
	c.next(response("p"))
	id := c.next(isConfirm)["id"].(string)
	c.send(`{"id":"a","type":"abort"}` + "\n")
	if r := c.next(response("a")); r["success"] != true {
		t.Fatal(r)
	}
	c.send(`{"type":"extension_ui_response","id":"` + id + `","confirmed":true}` + "\n")
	if r := c.next(event("response")); r["success"] != false || ran.Load() != 0 {
		t.Fatal(r)
	}
}

// A question and arguments from plugins and the model reach the client's
// dialog cleaned and clipped: no escape sequence, no control or bidi
// override, the question within 1000 runes and the arguments within 2000,
// cut in the middle (head and tail kept), never inside a rune.
func TestAskShowsCleanText(t *testing.T) {
	args := `{"path":"` + strings.Repeat("ü", 100_000) + `\u202e\u001b[2J"}`
	write := hosttest.Tool("write", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
		return host.ToolResult{Content: host.Text("written")}, nil
	})
	guard := host.WithBeforeOptions(host.BeforeToolCallFunc(func(context.Context, *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
		return &host.BeforeToolCallResult{Ask: "\x1b]0;owned\x07Allow \u202eexe.txt\u202c?\n" + strings.Repeat("漢", 5000) + "END"}, nil
	}), host.HookOptions{Name: "guard\x1b[31m"})
	c := startAgent(t, host.AgentOptions{
		Model:          scripted.Of(scripted.Turn{Content: host.Contents{host.ToolCall{ID: "w", Name: "write", Arguments: json.RawMessage(args)}}}, scripted.Turn{Content: host.Text("done")}),
		Tools:          []host.Tool{write},
		BeforeToolCall: []host.BeforeToolCallHook{guard},
	})
	c.send(`{"id":"p","type":"prompt","message":"go"}` + "\n")
	c.next(response("p"))
	req := c.next(isConfirm)
	title, _ := req["title"].(string)
	message, _ := req["message"].(string)
	for _, s := range []string{title, message} {
		for _, r := range s {
			if r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
				t.Fatalf("%U shown in %.120q", r, s)
			}
		}
	}
	question, ok := strings.CutPrefix(title, "guard[31m asks: ")
	if !ok || !strings.HasPrefix(question, "]0;ownedAllow exe.txt? 漢漢") || !strings.HasSuffix(question, "漢漢END") ||
		utf8.RuneCountInString(question) > 1000 || !strings.Contains(question, " bytes …") {
		t.Fatalf("title %.200q…", title)
	}
	shown, ok := strings.CutPrefix(message, "write ")
	if !ok || !strings.HasPrefix(shown, `{"path":"üü`) || !strings.HasSuffix(shown, `üü\u001b[2J"}`) ||
		utf8.RuneCountInString(shown) > 2000 || !utf8.ValidString(shown) || !strings.Contains(shown, " bytes …") {
		t.Fatalf("message %.200q…", message)
	}
	c.send(`{"type":"extension_ui_response","id":"` + req["id"].(string) + `","confirmed":false}` + "\n")
	c.next(event("agent_end"))
}
