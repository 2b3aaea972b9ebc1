package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// TestStalledSubscriberHoldsBoundedUpdates: 16 parallel calls each send 8
// updates of 1 MiB (one shared buffer, so the test allocates none) while
// the subscriber is stalled, then it resumes. What waited for it is
// within host.MaxQueuedUpdateBytes, and every call still ends (on the
// old main all 128 MiB waited: 127 updates, 133 MB).
func TestStalledSubscriberHoldsBoundedUpdates(t *testing.T) {
	const callsN, updates, size = 16, 8, 1 << 20
	buf := make(json.RawMessage, size)
	var posted sync.WaitGroup
	posted.Add(callsN)
	tool := hosttest.Tool("flood", `{"type":"object"}`, func(_ context.Context, _ string, _ json.RawMessage, onUpdate host.UpdateFunc) (host.ToolResult, error) {
		for range updates {
			onUpdate(buf)
		}
		posted.Done()
		return host.ToolResult{Content: host.Text("done")}, nil
	})
	var cs []host.ToolCall
	for i := range callsN {
		cs = append(cs, call(fmt.Sprint("c", i), "flood", `{}`))
	}
	var held, got int
	ends := 0
	stalled := false
	sink := func(_ context.Context, e host.Event) error {
		switch e := e.(type) {
		case host.ToolExecutionUpdateEvent:
			if !stalled {
				stalled = true
				posted.Wait() // every update is posted before this one is taken
				return nil
			}
			held += len(e.PartialResult.(json.RawMessage)) + 256
			got++
		case host.ToolExecutionEndEvent:
			ends++
		}
		return nil
	}
	m := scripted.Of(calls(cs...), say("ok"))
	if _, err := host.RunLoop(context.Background(), []host.Message{user("q")}, &host.Context{Tools: []host.Tool{tool}}, &host.Config{Model: m}, sink); err != nil {
		t.Fatal(err)
	}
	if held > host.MaxQueuedUpdateBytes {
		t.Fatalf("%d updates, %d bytes, waited for a stalled subscriber: the bound is %d", got, held, host.MaxQueuedUpdateBytes)
	}
	if ends != callsN {
		t.Fatalf("%d of %d calls ended", ends, callsN)
	}
}
