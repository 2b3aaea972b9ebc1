package cluster

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/serve"
	"github.com/wasmagent/wasmagent/host/session"
)

// A steer or follow-up to an idle session starts a run: it is held to
// the runs-at-once quota as a prompt is.
func TestRunsQuotaHoldsForEveryCommand(t *testing.T) {
	url := startNATS(t)
	a := startAPIHost(t, url, nil, serve.Quota{Runs: 1}, "alice")
	one := createdID(t, a.must(201, "alice", "POST", "/v1/sessions", `{}`))
	two := createdID(t, a.must(201, "alice", "POST", "/v1/sessions", `{}`))
	a.must(202, "alice", "POST", "/v1/sessions/"+two+"/prompt", `{"message":"short"}`)
	a.sse("alice", two, "", "agent_end")
	waitStreaming(t, a, "alice", two, false)
	a.must(202, "alice", "POST", "/v1/sessions/"+one+"/prompt", `{"message":"long"}`)
	waitStreaming(t, a, "alice", one, true)
	for _, cmd := range []string{"prompt", "follow_up", "steer"} {
		a.must(429, "alice", "POST", "/v1/sessions/"+two+"/"+cmd, `{"message":"long"}`)
	}
	a.must(200, "alice", "POST", "/v1/sessions/"+one+"/abort", `{}`)
}

// A follow-up to a session never prompted is its first message: accepted,
// run once, never left queued for a later prompt.
func TestFollowUpStartsANewSession(t *testing.T) {
	url := startNATS(t)
	a := startAPIHost(t, url, nil, serve.Quota{}, "alice")
	id := createdID(t, a.must(201, "alice", "POST", "/v1/sessions", `{}`))
	a.must(202, "alice", "POST", "/v1/sessions/"+id+"/follow_up", `{"message":"zzz-first"}`)
	a.sse("alice", id, "", "agent_end")
	waitStreaming(t, a, "alice", id, false)
	a.must(202, "alice", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"short"}`)
	waitStreaming(t, a, "alice", id, false)
	all := string(a.must(200, "alice", "GET", "/v1/sessions/"+id+"/messages", ""))
	if n := strings.Count(all, `{"role":"user","content":[{"type":"text","text":"zzz-first"}]`); n != 1 {
		t.Fatalf("the follow-up is %d user messages of the transcript, want 1: %s", n, all)
	}
}

// A tool result larger than the server's message limit does not fail the
// run: its events are published as stand-ins naming what was left out,
// and the transcript keeps the result whole.
//
// The bound and the size depend on the race detector (race_on_test.go):
// the code reads the bound from the connection, so the smaller pair
// tests the same thing. Small, the test waits beside the others.
func TestBigToolResultKeepsTheRun(t *testing.T) {
	t.Parallel()
	url := startNATSWith(t, bigResultBound)
	text := strings.Repeat("x", bigResultLen)
	big := hosttest.Tool("slow", "", func(ctx context.Context, id string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		return host.ToolResult{Content: host.Text(text)}, nil
	})
	opts := session.Options{Agent: host.AgentOptions{Model: testModel(), Tools: []host.Tool{big}}}
	svc, err := NewService(context.Background(), urlConn(t, url), ServiceOptions{Session: opts, LeaseTTL: 2 * time.Second, ReplyWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	srv, err := serve.New(serve.Options{Backend: svc, Heartbeat: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	a := &apiHost{t, svc, ts.URL}
	id := createdID(t, a.must(201, "", "POST", "/v1/sessions", `{}`))
	a.must(202, "", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"go"}`)
	omitted := 0
	for _, e := range a.sse("", id, "", "agent_end") {
		if strings.Contains(e.data, `"omittedBytes"`) {
			omitted++
		}
	}
	if omitted == 0 {
		t.Error("no event says it left the big result out")
	}
	var msgs struct{ Messages []json.RawMessage }
	json.Unmarshal(a.must(200, "", "GET", "/v1/sessions/"+id+"/messages", ""), &msgs)
	whole := false
	for _, m := range msgs.Messages {
		if strings.Contains(string(m), "errorMessage") {
			t.Errorf("the run failed: %.300s", m)
		}
		if strings.Contains(string(m), `"toolResult"`) && strings.Contains(string(m), text) {
			whole = true
		}
	}
	if !whole {
		t.Errorf("the transcript lacks the whole tool result (%d messages)", len(msgs.Messages))
	}
}

// Creates racing past the sessions quota never keep more than it.
func TestSessionsQuotaUnderRacingCreates(t *testing.T) {
	url := startNATS(t)
	a := startAPIHost(t, url, nil, serve.Quota{Sessions: 2}, "alice")
	b := startAPIHost(t, url, nil, serve.Quota{Sessions: 2}, "alice")
	codes := make(chan int, 16)
	for i := range 16 {
		h := a
		if i%2 == 1 {
			h = b
		}
		go func() { c, _ := h.do("alice", "POST", "/v1/sessions", `{}`); codes <- c }()
	}
	for range 16 {
		if c := <-codes; c != 201 && c != 429 {
			t.Errorf("create: %d, want 201 or 429", c)
		}
	}
	var list struct{ Sessions []json.RawMessage }
	json.Unmarshal(a.must(200, "alice", "GET", "/v1/sessions", ""), &list)
	if len(list.Sessions) > 2 {
		t.Fatalf("%d sessions kept with a quota of 2", len(list.Sessions))
	}
}

// A run another host continues keeps the tool-call quota of the command
// that started it.
func TestToolQuotaHoldsAfterHandover(t *testing.T) {
	// Its own server: it runs beside the others, which mostly wait
	// (RATIONALE.md, "Why is make test shaped this way?").
	t.Parallel()
	fixed := time.Date(2026, 12, 1, 10, 5, 30, 0, time.UTC)
	fixedClock := func() time.Time { return fixed }
	clockFunc.Store(&fixedClock)
	defer clockFunc.Store(nil)
	url := startNATS(t)
	q := serve.Quota{ToolCallsPerMinute: 1}
	a := startAPIHost(t, url, nil, q, "alice")
	id := createdID(t, a.must(201, "alice", "POST", "/v1/sessions", `{}`))
	a.must(202, "alice", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"long"}`)
	a.sse("alice", id, "", "tool_execution_start")
	b := startAPIHost(t, url, nil, q, "alice")
	a.svc.h.js.Conn().Close() // host A loses JetStream mid-tool
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var msgs struct{ Messages []json.RawMessage }
		json.Unmarshal(b.must(200, "alice", "GET", "/v1/sessions/"+id+"/messages", ""), &msgs)
		all := ""
		for _, m := range msgs.Messages {
			all += string(m)
		}
		if strings.Count(all, `"toolCall"`) >= 2 && strings.Count(all, `"role":"toolResult"`) >= 2 {
			if !strings.Contains(all, "Tool call quota exceeded") {
				t.Fatalf("the second tool call ran past a quota of 1 a minute after the handover: %s", all)
			}
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("the run did not go on on the other host")
}
