package serve

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/session"
)

// TestDrainLetsRunsFinish: once stopping, new runs get 503 with the
// reason; a run that ends before the deadline ends as it would have.
func TestDrainLetsRunsFinish(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	id, idle := h.create(""), h.create("")
	ev := h.openEvents(id, "", "")
	defer ev.close()
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"call 1 300"}`)
	ev.until(t, "tool_execution_start")
	h.server.StopRuns("stopping for a test")
	drained := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		drained <- h.backend.Drain(ctx)
	}()
	for _, path := range []string{"/v1/sessions/" + idle + "/prompt", "/v1/sessions/" + id + "/steer", "/v1/sessions/" + id + "/follow_up"} {
		if msg := h.mustError(503, "draining", "POST", path, "", `{"message":"more"}`); !strings.Contains(msg, "stopping for a test") {
			t.Errorf("%s: %q", path, msg)
		}
	}
	h.mustError(503, "draining", "POST", "/v1/sessions", "", ``)
	h.must(200, "GET", "/v1/sessions/"+id+"/messages", "", "") // reads go on
	if err := <-drained; err != nil {
		t.Fatalf("Drain: %v", err)
	}
	msgs := h.messagesOf(id)
	if last, ok := msgs[len(msgs)-1].(*host.AssistantMessage); !ok || last.StopReason != host.StopReasonStop {
		t.Fatalf("the run did not finish: last message %#v", msgs[len(msgs)-1])
	}
	// The backend itself refuses too (a server that forgot StopRuns).
	err := h.backend.Command(context.Background(), Caller{Owner: LocalOwner}, idle, Command{Type: "prompt", Message: ptr("x")})
	if !errors.Is(err, ErrDraining) {
		t.Fatalf("backend prompt while draining: %v", err)
	}
}

// TestDrainDeadlineAborts: a run still going at the deadline is aborted;
// its tool calls are recorded as interrupted (the sessions rule) in the
// session's log, which a restart finds as it was left.
func TestDrainDeadlineAborts(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	id := h.create("")
	ev := h.openEvents(id, "", "")
	defer ev.close()
	h.must(202, "POST", "/v1/sessions/"+id+"/prompt", "", `{"message":"call 2 60000"}`)
	ev.until(t, "tool_execution_start")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := h.backend.Drain(ctx); err == nil || !strings.Contains(err.Error(), "aborted") {
		t.Fatalf("Drain past its deadline: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Drain took %s", d)
	}
	ev.until(t, "agent_end")
	h.close()
	h2 := newHarness(t, harnessOpts{root: h.root})
	msgs := h2.messagesOf(id)
	results := 0
	for _, m := range msgs {
		if r, ok := m.(*host.ToolResultMessage); ok {
			if !r.IsError || r.Content.TextOf() != session.InterruptedText {
				t.Errorf("an aborted call's result is not the interrupted error: %+v", r)
			}
			results++
		}
	}
	if results != 2 {
		b, _ := json.Marshal(msgs)
		t.Fatalf("%d tool results after the abort, want 2: %s", results, b)
	}
}

func ptr[T any](v T) *T { return &v }

func (h *harness) messagesOf(id string) []host.Message {
	h.t.Helper()
	msgs, err := h.backend.Messages(context.Background(), Caller{Owner: LocalOwner}, id)
	if err != nil {
		h.t.Fatal(err)
	}
	return msgs
}
