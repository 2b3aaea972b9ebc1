package cluster

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host/serve"
)

// Commands keep RPC's semantics across hosts: a prompt while a run is
// going is 409 without a streamingBehavior; a steer sent through another
// host reaches the run once; an abort returns once the run has stopped.
func TestCommandsAcrossHosts(t *testing.T) {
	url := startNATS(t)
	a := startAPIHost(t, url, nil, serve.Quota{})
	b := startAPIHost(t, url, nil, serve.Quota{})
	id := createdID(t, a.must(201, "", "POST", "/v1/sessions", `{}`))
	a.must(202, "", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"first"}`)
	b.must(409, "", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"again"}`)
	b.must(202, "", "POST", "/v1/sessions/"+id+"/steer", `{"message":"steered"}`)
	a.sse("", id, "", "agent_end")
	var msgs struct{ Messages []json.RawMessage }
	json.Unmarshal(b.must(200, "", "GET", "/v1/sessions/"+id+"/messages", ""), &msgs)
	all := string(b.must(200, "", "GET", "/v1/sessions/"+id+"/messages", ""))
	if n := strings.Count(all, `"text":"steered"`); n != 1 {
		t.Fatalf("the steer is in the transcript %d times: %s", n, all)
	}
	if strings.Contains(all, `"text":"again"`) {
		t.Fatalf("a refused prompt ran: %s", all)
	}
	// A long run, aborted through the other host.
	a.must(202, "", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"long"}`)
	waitStreaming(t, b, "", id, true)
	b.must(200, "", "POST", "/v1/sessions/"+id+"/abort", `{}`)
	// The abort has returned: the run has stopped, its end is stored.
	json.Unmarshal(a.must(200, "", "GET", "/v1/sessions/"+id+"/messages", ""), &msgs)
	last := string(msgs.Messages[len(msgs.Messages)-1])
	if !strings.Contains(last, `"aborted"`) {
		t.Errorf("after abort the last message is %s", last)
	}
	b.must(400, "", "POST", "/v1/sessions/"+id+"/prompt", `{"message":"x","streamingBehavior":"later"}`)
	b.must(400, "", "POST", "/v1/sessions/"+id+"/steer", `{}`)
}

func waitStreaming(t *testing.T, h *apiHost, token, id string, want bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var info serve.SessionInfo
		json.Unmarshal(h.must(200, token, "GET", "/v1/sessions/"+id, ""), &info)
		if info.IsStreaming == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("session %s never had isStreaming %v", id, want)
}

// Quotas hold across hosts: sessions per token, runs at once per token.
func TestQuotasAcrossHosts(t *testing.T) {
	url := startNATS(t)
	q := serve.Quota{Sessions: 2, Runs: 1}
	a := startAPIHost(t, url, nil, q, "alice", "bob")
	b := startAPIHost(t, url, nil, q, "alice", "bob")
	one := createdID(t, a.must(201, "alice", "POST", "/v1/sessions", `{}`))
	two := createdID(t, b.must(201, "alice", "POST", "/v1/sessions", `{}`))
	a.must(429, "alice", "POST", "/v1/sessions", `{}`)
	b.must(201, "bob", "POST", "/v1/sessions", `{}`)
	a.must(202, "alice", "POST", "/v1/sessions/"+one+"/prompt", `{"message":"long"}`)
	waitStreaming(t, b, "alice", one, true) // the run is counted once its host holds it
	b.must(429, "alice", "POST", "/v1/sessions/"+two+"/prompt", `{"message":"x"}`)
	a.must(200, "alice", "POST", "/v1/sessions/"+one+"/abort", `{}`)
}

// The tool calls per minute of a token are counted across hosts: a call
// past the quota is blocked (the model told why, the run goes on), and a
// prompt while the minute's calls are used up is 429.
func TestToolCallQuotaAcrossHosts(t *testing.T) {
	fixed := time.Date(2026, 12, 1, 10, 0, 30, 0, time.UTC)
	fixedClock := func() time.Time { return fixed }
	clockFunc.Store(&fixedClock)
	defer clockFunc.Store(nil)
	url := startNATS(t)
	q := serve.Quota{ToolCallsPerMinute: 3}
	a := startAPIHost(t, url, nil, q, "alice", "bob")
	b := startAPIHost(t, url, nil, q, "alice", "bob")
	one := createdID(t, a.must(201, "alice", "POST", "/v1/sessions", `{}`))
	a.must(202, "alice", "POST", "/v1/sessions/"+one+"/prompt", `{"message":"first"}`)
	a.sse("alice", one, "", "agent_end")
	two := createdID(t, b.must(201, "alice", "POST", "/v1/sessions", `{}`))
	b.must(202, "alice", "POST", "/v1/sessions/"+two+"/prompt", `{"message":"second"}`)
	evs := b.sse("alice", two, "", "agent_end")
	// The block reached the event stream as a hook_decision (serve's page
	// marks the call with it).
	blocks := 0
	for _, e := range evs {
		if strings.Contains(e.data, `"type":"hook_decision"`) && strings.Contains(e.data, `"decision":"block"`) {
			blocks++
		}
	}
	if blocks != 1 {
		t.Errorf("%d hook_decision blocks in the stream, want 1", blocks)
	}
	all := string(a.must(200, "alice", "GET", "/v1/sessions/"+two+"/messages", ""))
	if n := strings.Count(all, "Tool call quota exceeded"); n != 1 {
		t.Fatalf("%d calls blocked (want the fourth of the minute): %s", n, all)
	}
	a.must(429, "alice", "POST", "/v1/sessions/"+one+"/prompt", `{"message":"third"}`)
	// Another token counts its own.
	other := createdID(t, b.must(201, "bob", "POST", "/v1/sessions", `{}`))
	b.must(202, "bob", "POST", "/v1/sessions/"+other+"/prompt", `{"message":"x"}`)
}
