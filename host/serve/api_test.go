package serve

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestPromptStreamsEvents(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	id := h.create("")
	events := h.openEvents(id, "", "")
	defer events.close()
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"call 2"}`)
	got := events.until(t, "agent_end")
	var types []string
	var prev int64
	for i, ev := range got {
		if want := i + 1; ev.ID != itoa(want) {
			t.Fatalf("event %d has id %q", i, ev.ID)
		}
		ms, err := strconv.ParseInt(ev.Time, 10, 64)
		if err != nil || ms < prev || time.Since(time.UnixMilli(ms)) > time.Minute {
			t.Fatalf("event %d has time %q (after %d)", i, ev.Time, prev)
		}
		prev = ms
		types = append(types, eventType(ev.Data))
	}
	joined := strings.Join(types, " ")
	for _, want := range []string{"agent_start", "tool_execution_start", "tool_execution_end", "turn_end", "agent_end"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %s in %s", want, joined)
		}
	}
	var msgs struct{ Messages []json.RawMessage }
	json.Unmarshal(h.must(200, "GET", "/v1/sessions/"+id+"/messages", "", ""), &msgs)
	// user, assistant (2 calls), 2 results, assistant "done"
	if len(msgs.Messages) != 5 {
		t.Fatalf("%d messages: %s", len(msgs.Messages), msgs.Messages)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// waitIdle polls GET /v1/sessions/{id} until the session is not streaming.
func (h *harness) waitIdle(id, token string) SessionInfo {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var info SessionInfo
		json.Unmarshal(h.must(200, "GET", "/v1/sessions/"+id, token, ""), &info)
		if !info.IsStreaming {
			return info
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("session %s still streaming", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestCreateGetListDelete(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	code, body, hdr := h.do("POST", "/v1/sessions", "", `{"name":"notes","systemPrompt":"be brief","model":{"provider":"test","modelId":"echo"}}`)
	if code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	var info SessionInfo
	json.Unmarshal(body, &info)
	if info.Name != "notes" || info.Model == nil || info.Model.ModelID != "echo" || hdr.Get("Location") != "/v1/sessions/"+info.ID {
		t.Fatalf("create answered %s (Location %q)", body, hdr.Get("Location"))
	}
	second := h.create("")
	var list struct{ Sessions []SessionInfo }
	json.Unmarshal(h.must(200, "GET", "/v1/sessions", "", ""), &list)
	if len(list.Sessions) != 2 || list.Sessions[0].ID != second || list.Sessions[1].ID != info.ID {
		t.Fatalf("list (newest first) = %+v", list.Sessions)
	}
	h.must(202, "POST", "/v1/sessions/"+info.ID+"/prompt", "", `{"message":"hello"}`)
	got := h.waitIdle(info.ID, "")
	if got.MessageCount != 2 || got.FirstMessage != "hello" || got.LastEventID == "" {
		t.Fatalf("after a prompt: %+v", got)
	}
	h.must(204, "DELETE", "/v1/sessions/"+info.ID, "", "")
	for _, path := range []string{"", "/messages", "/events"} {
		h.must(404, "GET", "/v1/sessions/"+info.ID+path, "", "")
	}
	h.must(404, "DELETE", "/v1/sessions/"+info.ID, "", "")
	json.Unmarshal(h.must(200, "GET", "/v1/sessions", "", ""), &list)
	if len(list.Sessions) != 1 {
		t.Fatalf("after delete: %+v", list.Sessions)
	}
}

func TestSystemPromptAndModelOfCreate(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.mustError(400, "invalid_request", "POST", "/v1/sessions", "", `{"model":{"provider":"openai","modelId":"gpt-9"}}`)
	h.mustError(400, "invalid_request", "POST", "/v1/sessions", "", `{"model":{"provider":"test"}}`)
	// The system prompt of a session outlives a restart of the server.
	root := h.root
	var info SessionInfo
	json.Unmarshal(h.must(201, "POST", "/v1/sessions", "", `{"systemPrompt":"custom prompt"}`), &info)
	l := h.backend.mustLive(t, info.ID)
	if p := l.sess.Agent().State().SystemPrompt; p != "custom prompt" {
		t.Fatalf("system prompt %q", p)
	}
	h.must(202, "POST", "/v1/sessions/"+info.ID+"/prompt", "", `{"message":"hi"}`)
	h.waitIdle(info.ID, "")
	h.close()
	h2 := newHarness(t, harnessOpts{root: root})
	h2.must(202, "POST", "/v1/sessions/"+info.ID+"/prompt", "", `{"message":"again"}`)
	if p := h2.backend.mustLive(t, info.ID).sess.Agent().State().SystemPrompt; p != "custom prompt" {
		t.Fatalf("after a restart, system prompt %q", p)
	}
	h2.waitIdle(info.ID, "")
}

func (b *Local) mustLive(t testing.TB, id string) *live {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, o := range b.owners {
		o.mu.Lock()
		l := o.live[id]
		o.mu.Unlock()
		if l != nil {
			return l
		}
	}
	t.Fatalf("session %s is not open", id)
	return nil
}

// mustError is must for an error: its status, and its JSON's code.
func (h *harness) mustError(want int, code, method, path, token, body string) string {
	h.t.Helper()
	got, data, _ := h.do(method, path, token, body)
	var e errorBody
	if err := json.Unmarshal(data, &e); err != nil || got != want || e.Error.Code != code || e.Error.Message == "" {
		h.t.Fatalf("%s %s %s: %d %s, want %d with code %q", method, path, body, got, data, want, code)
	}
	return e.Error.Message
}

func TestCommandsAsRPC(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	id := h.create("")
	events := h.openEvents(id, "", "")
	defer events.close()
	// A slow tool keeps the run going while we steer, follow up and
	// prompt again.
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"type":"prompt","id":"req-1","message":"call 1 300"}`)
	events.until(t, "tool_execution_start")
	msg := h.mustError(409, "busy", "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"second"}`)
	if !strings.Contains(msg, "streamingBehavior") {
		t.Errorf("busy message %q does not say what to do", msg)
	}
	h.must(202, "POST", "/v1/sessions/"+id+"/steer", "", `{"message":"steered"}`)
	h.must(202, "POST", "/v1/sessions/"+id+"/follow_up", "", `{"message":"followed"}`)
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"queued","streamingBehavior":"followUp"}`)
	var texts []string
	for _, ev := range events.until(t, "agent_end") {
		var e struct {
			Type    string
			Message struct {
				Role    string
				Content json.RawMessage
			}
		}
		json.Unmarshal([]byte(ev.Data), &e)
		if e.Type == "message_start" && e.Message.Role == "user" {
			var c []struct{ Text string }
			json.Unmarshal(e.Message.Content, &c)
			texts = append(texts, c[0].Text)
		}
	}
	if strings.Join(texts, ",") != "steered,followed,queued" {
		t.Fatalf("user messages delivered: %q", texts)
	}
	// abort: a run in progress stops; the answer comes when it has. The
	// tool would run 10 minutes: waitIdle's deadline fails the test long
	// before, whatever the machine's load.
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"call 1 600000"}`)
	events.until(t, "tool_execution_start")
	h.must(200, "POST", "/v1/sessions/"+id+"/abort", "", ``)
	if info := h.waitIdle(id, ""); info.IsStreaming {
		t.Fatalf("abort did not stop the run: %+v", info)
	}
	events.until(t, "agent_end")
}

func TestBadRequests(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	id := h.create("")
	p := "/v1/sessions/" + id
	for _, c := range []struct{ path, body, field string }{
		{p + "/prompt", `{"message":5}`, "message"},
		{p + "/prompt", `{"mesage":"typo"}`, "mesage"},
		{p + "/prompt", `{}`, "message"},
		{p + "/prompt", `[1]`, ""},
		{p + "/prompt", `{"message":"a"} {"message":"b"}`, ""},
		{p + "/prompt", `{"message":"a","streamingBehavior":"later"}`, "streamingBehavior"},
		{p + "/prompt", `{"message":"a","type":"steer"}`, "type"},
		{p + "/prompt", `{"message":"a","images":[{"type":"image","data":""}]}`, "images[0]"},
		{p + "/steer", `{"message":"a","streamingBehavior":"steer"}`, "streamingBehavior"},
		{p + "/abort", `{"message":"a"}`, ""},
		{"/v1/sessions", `{"name":7}`, "name"},
		{"/v1/sessions", `not json`, ""},
	} {
		msg := h.mustError(400, "invalid_request", "POST", c.path, "", c.body)
		if c.field != "" && !strings.Contains(msg, c.field) {
			t.Errorf("%s %s: message %q does not name %q", c.path, c.body, msg, c.field)
		}
	}
	h.mustError(404, "not_found", "GET", "/v1/sessions/not-an-id", "", "")
	h.mustError(404, "not_found", "POST", "/v1/sessions/01234567-89ab-7def-8123-456789abcdef/prompt", "", `{"message":"x"}`)
	h.mustError(404, "not_found", "GET", "/v1/nothing", "", "")
	h.mustError(404, "not_found", "GET", "/elsewhere", "", "")
	code, data, hdr := h.do("PUT", p, "", "")
	if code != 405 || hdr.Get("Allow") == "" || !strings.Contains(string(data), "method_not_allowed") {
		t.Fatalf("PUT: %d %s (Allow %q)", code, data, hdr.Get("Allow"))
	}
	for _, last := range []string{"abc", "-1", "01", "99", " 1"} {
		code, data, _ := h.doWith("GET", p+"/events", "", "", map[string]string{"Last-Event-ID": last})
		if code != 400 || !strings.Contains(string(data), "Last-Event-ID") {
			t.Errorf("Last-Event-ID %q: %d %s", last, code, data)
		}
	}
}

func TestMetricsAndWebMounted(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("calls_total 3\n")) })
	web := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>" + r.URL.Path)) })
	h := newHarness(t, harnessOpts{tokens: twoTokens(t), server: func(o *Options) { o.Metrics, o.Web = metrics, web }})
	h.mustError(401, "unauthorized", "GET", "/metrics", "", "")
	if body := h.must(200, "GET", "/metrics", tokenB, ""); string(body) != "calls_total 3\n" {
		t.Fatalf("/metrics: %q", body)
	}
	if body := h.must(200, "GET", "/", "", ""); string(body) != "<html>/" {
		t.Fatalf("/: %q", body)
	}
	if body := h.must(200, "GET", "/app.js", "", ""); string(body) != "<html>/app.js" {
		t.Fatalf("/app.js: %q", body)
	}
	h.mustError(404, "not_found", "GET", "/v1/unknown", tokenA, "")
	// Without them, neither is there.
	h2 := newHarness(t, harnessOpts{})
	h2.mustError(404, "not_found", "GET", "/metrics", "", "")
	h2.mustError(404, "not_found", "GET", "/", "", "")
}

// TestNeverPromptedIsForgotten: a session created and never prompted is
// not kept over a restart, and leaves no files behind; one prompted is.
func TestNeverPromptedIsForgotten(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	empty, used := h.create(""), h.create("")
	h.must(202, "POST", "/v1/sessions/"+used+"/prompt", "", `{"message":"keep me"}`)
	h.waitIdle(used, "")
	h.close()
	h2 := newHarness(t, harnessOpts{root: h.root})
	h2.must(404, "GET", "/v1/sessions/"+empty, "", "")
	h2.must(200, "GET", "/v1/sessions/"+used, "", "")
	for _, p := range []string{"events/" + empty + ".jsonl", "meta/" + empty + ".json"} {
		if _, err := os.Stat(filepath.Join(h.root, LocalOwner, p)); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	if _, err := os.Stat(filepath.Join(h.root, LocalOwner, "events", used+".jsonl")); err != nil {
		t.Errorf("the prompted session's journal: %v", err)
	}
}

// TestIdleSessionsClose: a session idle past IdleClose leaves memory; the
// next command opens it again from its file, and its transcript and event
// ids go on.
func TestIdleSessionsClose(t *testing.T) {
	h := newHarness(t, harnessOpts{idle: 30 * time.Millisecond})
	id := h.create("")
	ev := h.openEvents(id, "", "")
	defer ev.close()
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"call 1 100"}`)
	first := ev.until(t, "agent_end") // a run longer than IdleClose is not closed
	deadline := time.Now().Add(5 * time.Second)
	for h.backend.isLive(id) {
		if time.Now().After(deadline) {
			t.Fatal("the idle session stayed open")
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"again"}`)
	second := ev.until(t, "agent_end")
	if second[0].ID != strconv.Itoa(len(first)+1) {
		t.Fatalf("after reopening, the first event's id is %s, want %d", second[0].ID, len(first)+1)
	}
	if n := len(h.messagesOf(id)); n != 6 {
		t.Fatalf("%d messages after two runs", n)
	}
}

func (b *Local) isLive(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, o := range b.owners {
		o.mu.Lock()
		l := o.live[id]
		o.mu.Unlock()
		if l != nil {
			return true
		}
	}
	return false
}

// TestIdleNeverPromptedIsForgotten: closing an idle session that was never
// prompted forgets it, as a restart would: it no longer counts against the
// sessions quota.
func TestIdleNeverPromptedIsForgotten(t *testing.T) {
	h := newHarness(t, harnessOpts{idle: 20 * time.Millisecond, quota: Quota{Sessions: 1}})
	id := h.create("")
	deadline := time.Now().Add(5 * time.Second)
	for h.backend.isLive(id) {
		if time.Now().After(deadline) {
			t.Fatal("the idle session stayed open")
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.mustError(404, "not_found", "GET", "/v1/sessions/"+id, "", "")
	h.create("")
}
