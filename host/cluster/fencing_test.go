package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A host paused (SIGSTOP) past its lease while a tool runs loses the
// session to another host; resumed (SIGCONT), its tool returns, and it
// can neither append to the session nor publish its events: the
// transcript holds the other host's interrupted result for its call and
// nothing of its own, and the paused host goes on serving.
func TestPausedHostIsFenced(t *testing.T) {
	// Its own cluster: it waits on leases and replication (5 s of CPU
	// in 15 to 25 s) beside the others (RATIONALE.md, "Why is make test
	// shaped this way?").
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary, runs a 3-node cluster and 3 hosts")
	}
	c := startTestCluster(t)
	hosts := make([]*child, 3)
	for i := range hosts {
		// The call sleeps 12 s: long enough that the lease is still
		// held when a loaded machine (this test runs beside the other
		// cluster tests) gets round to looking for its holder, and
		// short enough that it returns soon after the host resumes.
		hosts[i] = startHost(t, c, fmt.Sprintf("host%d", i), hostScript(i, 12000))
	}
	_, body := hosts[0].call(t, "POST", "/v1/sessions", `{}`)
	var info struct{ ID string }
	json.Unmarshal([]byte(body), &info)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if code, body := hosts[0].call(t, "POST", "/v1/sessions/"+info.ID+"/prompt", `{"message":"go"}`); code != 202 {
		t.Fatalf("prompt: %d %s", code, body)
	}
	first := watch(ctx, hosts[0], info.ID, "", isType("tool_execution_start"))
	<-first.done
	paused := -1
	// A minute only tells a hang from a loaded machine: at load 10 the
	// fencing test once waited more than 10 s for the holder to show.
	waitFor(t, time.Minute, "the session's lease", func() bool {
		holder := c.holder(t, info.ID)
		for i, h := range hosts {
			if h.pidIn(holder) {
				paused = i
			}
		}
		return paused >= 0
	})
	p := hosts[paused]
	p.cmd.Process.Signal(syscall.SIGSTOP)
	// Another host takes the session over and finishes the run.
	other := hosts[(paused+1)%3]
	end := watch(ctx, other, info.ID, "", isType("agent_end"))
	select {
	case <-end.done:
	case <-ctx.Done():
		t.Fatalf("the run did not end on another host: %d events", len(end.snapshot()))
	}
	if h := c.holder(t, info.ID); p.pidIn(h) {
		t.Fatalf("the paused host still holds the lease: %s", h)
	}
	p.cmd.Process.Signal(syscall.SIGCONT)
	// Its tool returns within the sleep it had left; then it may first
	// have to reconnect to NATS (a paused client misses the server's
	// pings), and at load 10 that took longer than 30 s once: the wait
	// tells a hang from a loaded machine, then checks what it could not
	// write.
	waitFor(t, 90*time.Second, "the resumed host to notice", func() bool {
		// Refused (another host wrote since), or found without its lease
		// when its run failed (the other host had already finished and
		// released it): both say this host stopped writing the session.
		return strings.Contains(p.stderr(), "taken the session over") || strings.Contains(p.stderr(), "stopped writing it")
	})
	code, body := other.call(t, "GET", "/v1/sessions/"+info.ID+"/messages", "")
	if code != 200 {
		t.Fatalf("messages: %d %s", code, body)
	}
	call := fmt.Sprintf("h%d-call", paused)
	var msgs struct {
		Messages []struct {
			Role       string
			ToolCallID string
			Content    json.RawMessage
		}
	}
	json.Unmarshal([]byte(body), &msgs)
	results := 0
	for _, m := range msgs.Messages {
		if m.Role == "toolResult" && m.ToolCallID == call {
			results++
			if !strings.Contains(string(m.Content), "Tool call interrupted") {
				t.Errorf("the paused host's call has a result it wrote: %s", m.Content)
			}
		}
	}
	if results != 1 {
		t.Errorf("the paused host's call has %d results: %s", results, body)
	}
	evs, err := c.js.Stream(ctx, "WA_EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	last, err := evs.GetLastMsgForSubject(ctx, "wa.ev."+info.ID)
	if err != nil {
		t.Fatal(err)
	}
	lastID := fmt.Sprint(last.Sequence)
	all := watch(ctx, other, info.ID, "", func(e sseEvent) bool { return e.ID == lastID })
	<-all.done
	for _, e := range all.snapshot() {
		if typeOf(e.Data) == "tool_execution_end" && strings.Contains(e.Data, call) {
			t.Errorf("the paused host published an event after losing the session: %s", e.Data)
		}
	}
	if code, _ := p.call(t, "GET", "/healthz", ""); code != 200 {
		t.Errorf("the resumed host does not serve: %d", code)
	}
}
