package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// TestHammerParallelBatch runs 64 parallel calls 100 times: every call ends
// exactly once, the result messages keep source order, and -race is quiet.
func TestHammerParallelBatch(t *testing.T) {
	const calls, runs = 64, 100
	tool := hosttest.Tool("jitter", `{"type":"object","properties":{"i":{"type":"integer"}},"required":["i"]}`,
		func(_ context.Context, _ string, args json.RawMessage, up host.UpdateFunc) (host.ToolResult, error) {
			up("working")
			time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
			return host.ToolResult{Content: host.Text(string(args))}, nil
		})
	for run := range runs {
		var cs []host.ToolCall
		for i := range calls {
			cs = append(cs, call(fmt.Sprintf("c%d", i), "jitter", fmt.Sprintf(`{"i":%d}`, i)))
		}
		lr := newLoopRun(t, []host.Tool{tool}, callsTurn(cs), say("ok"))
		lr.cfg.MaxConcurrency = 0
		lr.run(user("go"))
		if lr.err != nil {
			t.Fatal(lr.err)
		}
		ends := map[string]int{}
		for _, e := range toolEnds(lr.rec) {
			ends[e.ToolCallID]++
		}
		var results []*host.ToolResultMessage
		for _, e := range lr.rec.Events() {
			if te, ok := e.(host.TurnEndEvent); ok && len(te.ToolResults) > 0 {
				results = te.ToolResults
			}
		}
		if len(ends) != calls || len(results) != calls {
			t.Fatalf("run %d: %d ends, %d results", run, len(ends), len(results))
		}
		for i, r := range results {
			want := fmt.Sprintf("c%d", i)
			if r.ToolCallID != want || ends[want] != 1 || r.Content.TextOf() != fmt.Sprintf(`{"i":%d}`, i) {
				t.Fatalf("run %d: result %d is %s (%q), ends %d", run, i, r.ToolCallID, r.Content.TextOf(), ends[want])
			}
		}
	}
}

func callsTurn(cs []host.ToolCall) scripted.Turn { return calls(cs...) }
