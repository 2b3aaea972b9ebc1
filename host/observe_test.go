package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// stageNode is one stage an Observer was told of.
type stageNode struct {
	s      host.Stage
	parent *stageNode
	ends   int
	end    host.StageEnd
}

type stageKey struct{}

// stageRecorder is an Observer that records the tree of stages.
type stageRecorder struct {
	mu    sync.Mutex
	nodes []*stageNode
}

func (r *stageRecorder) Begin(ctx context.Context, s host.Stage) (context.Context, func(host.StageEnd)) {
	n := &stageNode{s: s}
	n.parent, _ = ctx.Value(stageKey{}).(*stageNode)
	r.mu.Lock()
	r.nodes = append(r.nodes, n)
	r.mu.Unlock()
	return context.WithValue(ctx, stageKey{}, n), func(e host.StageEnd) {
		r.mu.Lock()
		defer r.mu.Unlock()
		n.ends++
		n.end = e
	}
}

// within is the stage ctx runs under.
func within(ctx context.Context) *stageNode {
	n, _ := ctx.Value(stageKey{}).(*stageNode)
	return n
}

// parentKind is the kind every stage's parent must have.
var parentKind = map[host.StageKind]host.StageKind{
	host.StageTurn: host.StageRun, host.StageModel: host.StageTurn, host.StageTool: host.StageTurn, host.StageHook: host.StageTool,
}

// TestObserverStageTree is a property test: whatever the model asks (calls
// that run, fail, are blocked, name no tool, carry bad arguments, past the
// cap), in parallel or in sequence, and wherever the sink fails, every stage
// begun ends exactly once, nests under the stage it belongs to, and the
// tools and hooks run under their own stage's context.
func TestObserverStageTree(t *testing.T) {
	for seed := range uint64(300) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { checkStageTree(t, rand.New(rand.NewPCG(seed, 17))) })
	}
}

func checkStageTree(t *testing.T, rng *rand.Rand) {
	var wrong []string
	var mu sync.Mutex
	expect := func(ctx context.Context, kind host.StageKind, what string) {
		if n := within(ctx); n == nil || n.s.Kind != kind {
			mu.Lock()
			wrong = append(wrong, what+" does not run under its "+string(kind)+" stage")
			mu.Unlock()
		}
	}
	tool := &host.ToolFunc{
		ToolInfo: host.ToolInfo{Name: "t", Parameters: json.RawMessage(`{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}`)},
		Func: func(ctx context.Context, _ string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
			expect(ctx, host.StageTool, "the tool")
			if strings.Contains(string(args), "fail") {
				return host.ToolResult{}, errors.New("failed")
			}
			return host.ToolResult{Content: host.Text("ok")}, nil
		},
	}
	before := host.BeforeToolCallFunc(func(ctx context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
		expect(ctx, host.StageHook, "the before hook")
		return &host.BeforeToolCallResult{Block: strings.Contains(string(c.Args), "block")}, nil
	})
	after := host.AfterToolCallFunc(func(ctx context.Context, c *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
		expect(ctx, host.StageHook, "the after hook")
		return nil, nil
	})
	var turns []scripted.Turn
	for i := range rng.IntN(4) {
		var content host.Contents
		for j := range rng.IntN(5) {
			name, args := "t", []string{`{"v":"ok"}`, `{"v":"fail"}`, `{"v":"block"}`, `{"v":1}`, `{}`}[rng.IntN(5)]
			if rng.IntN(6) == 0 {
				name = "missing"
			}
			content = append(content, host.ToolCall{ID: fmt.Sprintf("c%d_%d", i, j), Name: name, Arguments: json.RawMessage(args)})
		}
		if len(content) == 0 {
			content = host.Text("thinking")
		}
		turns = append(turns, scripted.Turn{Content: content})
	}
	turns = append(turns, scripted.Turn{Content: host.Text("done")})
	rec := &stageRecorder{}
	cfg := &host.Config{Model: scripted.Of(turns...), Observer: rec, BeforeToolCall: []host.BeforeToolCallHook{before},
		AfterToolCall: []host.AfterToolCallHook{after}, MaxToolCalls: 1 + rng.IntN(4)}
	if rng.IntN(2) == 0 {
		cfg.ToolExecution = host.ExecutionSequential
	}
	failAt := -1
	if rng.IntN(3) == 0 {
		failAt = rng.IntN(30)
	}
	events := 0
	sink := func(context.Context, host.Event) error {
		events++
		if events == failAt {
			return errors.New("sink failed")
		}
		return nil
	}
	host.RunLoop(context.Background(), []host.Message{&host.UserMessage{Content: host.Text("go"), Timestamp: 1}}, &host.Context{Tools: []host.Tool{tool}}, cfg, sink)
	for _, w := range wrong {
		t.Error(w)
	}
	runs := 0
	for _, n := range rec.nodes {
		if n.ends != 1 {
			t.Errorf("%s stage %q ended %d times", n.s.Kind, n.s.ToolCallID, n.ends)
		}
		if n.s.Kind == host.StageRun {
			runs++
			if n.parent != nil {
				t.Error("the run is not the root")
			}
			continue
		}
		if n.parent == nil || n.parent.s.Kind != parentKind[n.s.Kind] {
			t.Errorf("%s stage %q is not under a %s stage", n.s.Kind, n.s.ToolCallID, parentKind[n.s.Kind])
		} else if n.s.Kind == host.StageHook && n.parent.s.ToolCallID != n.s.ToolCallID {
			t.Errorf("hook of %q is under the call %q", n.s.ToolCallID, n.parent.s.ToolCallID)
		}
		if n.s.Kind == host.StageTool && n.ends == 1 && n.end.Result == nil && (n.end.Outcome != "error" || failAt < 0) {
			t.Errorf("call %q ended without its result", n.s.ToolCallID)
		}
	}
	if runs != 1 {
		t.Errorf("%d runs", runs)
	}
}
