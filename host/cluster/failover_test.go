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

// A host killed with SIGKILL while a tool runs loses its session to
// another host, which records the cut-off call as interrupted and
// finishes the run: the transcript holds every message whose
// message_end any client saw, exactly once, and an SSE client attached
// to a surviving host saw every event, before the failover and after.
func TestFailoverAfterSIGKILL(t *testing.T) {
	// Its own server: it runs beside the others, which mostly wait
	// (RATIONALE.md, "Why is make test shaped this way?").
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary, runs a 3-node cluster and 3 hosts")
	}
	c := startTestCluster(t)
	hosts := make([]*child, 3)
	for i := range hosts {
		hosts[i] = startHost(t, c, fmt.Sprintf("host%d", i), hostScript(i, 12000))
	}
	code, body := hosts[0].call(t, "POST", "/v1/sessions", `{}`)
	var info struct{ ID string }
	if json.Unmarshal([]byte(body), &info); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	watchers := make([]*sseClient, 3)
	for i, h := range hosts {
		watchers[i] = watch(ctx, h, info.ID, "", isType("agent_end"))
	}
	if code, body := hosts[1].call(t, "POST", "/v1/sessions/"+info.ID+"/prompt", `{"message":"go"}`); code != 202 {
		t.Fatalf("prompt: %d %s", code, body)
	}
	// The host running the tool is the one whose script made the call
	// (h<i>-call): it is killed as soon as a client sees the call start,
	// not after a look-up of the lease, which on a loaded machine (load
	// 20) once came after the 4 s call had ended and the lease was given
	// back. The call sleeps 12 s: at load 8 a client saw the start of a
	// 4 s call only after it had ended.
	victim := -1
	waitFor(t, 30*time.Second, "the tool to start", func() bool {
		for _, e := range watchers[0].snapshot() {
			if typeOf(e.Data) == "tool_execution_start" {
				var ev struct{ ToolCallID string }
				json.Unmarshal([]byte(e.Data), &ev)
				if _, err := fmt.Sscanf(ev.ToolCallID, "h%d-call", &victim); err != nil || victim < 0 || victim >= len(hosts) {
					t.Fatalf("a tool call of no host: %s", e.Data)
				}
				return true
			}
		}
		return false
	})
	if holder := c.holder(t, info.ID); holder != "" && !hosts[victim].pidIn(holder) {
		t.Fatalf("host%d runs the call, %s holds the session", victim, holder)
	}
	hosts[victim].cmd.Process.Signal(syscall.SIGKILL)
	for i, w := range watchers {
		if i == victim {
			continue
		}
		select {
		case <-w.done:
		case <-ctx.Done():
			t.Fatalf("host%d's client saw no agent_end: %d events", i, len(w.snapshot()))
		}
	}
	var all []sseEvent
	for i, w := range watchers {
		if i == victim {
			continue
		}
		got := w.snapshot()
		if all == nil {
			all = got
			continue
		}
		if len(got) != len(all) {
			t.Fatalf("the surviving clients saw %d and %d events", len(all), len(got))
		}
		for j := range got {
			if got[j] != all[j] {
				t.Fatalf("the surviving clients differ at event %d", j)
			}
		}
	}
	// Each saw every event the stream holds, in order, each once.
	survivor := (victim + 1) % 3
	stored := watch(ctx, hosts[survivor], info.ID, "", isType("agent_end"))
	<-stored.done
	if s := stored.snapshot(); len(s) != len(all) {
		t.Fatalf("the stream holds %d events up to agent_end, the clients saw %d", len(s), len(all))
	}
	code, body = hosts[survivor].call(t, "GET", "/v1/sessions/"+info.ID+"/messages", "")
	var msgs struct{ Messages []json.RawMessage }
	if json.Unmarshal([]byte(body), &msgs); code != 200 {
		t.Fatalf("messages: %d %s", code, body)
	}
	inTranscript := map[string]int{}
	for _, m := range msgs.Messages {
		inTranscript[canonical(t, m)]++
	}
	ended := 0
	for _, e := range all {
		if typeOf(e.Data) != "message_end" {
			continue
		}
		var v struct{ Message json.RawMessage }
		json.Unmarshal([]byte(e.Data), &v)
		if n := inTranscript[canonical(t, v.Message)]; n != 1 {
			t.Errorf("an ended message is in the transcript %d times: %s", n, v.Message)
		}
		ended++
	}
	if ended != len(msgs.Messages) {
		t.Errorf("%d messages ended, the transcript holds %d", ended, len(msgs.Messages))
	}
	text := string(body)
	if !strings.Contains(text, "Tool call interrupted") || !strings.Contains(text, fmt.Sprintf(`"h%d-call"`, victim)) {
		t.Errorf("the killed host's call is not recorded as interrupted: %s", text)
	}
	if strings.Contains(text, fmt.Sprintf("finished on host %d", victim)) || !strings.Contains(text, "finished on host") {
		t.Errorf("the run did not finish on a surviving host: %s", text)
	}
}

// canonical re-encodes a JSON value so that equal messages compare equal.
func canonical(t *testing.T, raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
