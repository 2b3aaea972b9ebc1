package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// The golden tests record whole event streams of docs/loop.md's scenarios; the
// rule tests (rules_test.go) assert the individual rules on them.

func TestGoldenPlainText(t *testing.T) {
	lr := newLoopRun(t, nil, scripted.Turn{Content: host.Contents{
		host.ThinkingContent{Thinking: "The user greets me."},
		host.TextContent{Text: "Hello there, how can I help you today?"},
	}}).run(user("hi"))
	lr.golden("plain_text")
}

func TestGoldenOneTool(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{hosttest.Echo("echo")},
		calls(call("c1", "echo", `{"text":"ping"}`)),
		say("pong"),
	).run(user("echo ping"))
	lr.golden("one_tool")
}

// waitTool finishes only after the call named in its "after" argument has
// ended, so a test can fix the completion order of a parallel batch.
func waitTool(rec *hosttest.Recorder) *host.ToolFunc {
	return hosttest.Tool("wait", `{"type":"object","properties":{"after":{"type":"string"}}}`,
		func(_ context.Context, id string, args json.RawMessage, onUpdate host.UpdateFunc) (host.ToolResult, error) {
			var a struct{ After string }
			json.Unmarshal(args, &a)
			if a.After != "" && !rec.WaitFor(5*time.Second, hosttest.Ended(a.After)) {
				return host.ToolResult{}, errors.New("timed out waiting for " + a.After)
			}
			onUpdate(map[string]any{"waited": a.After})
			return host.ToolResult{Content: host.Text("done " + id), Details: map[string]any{"after": a.After}}, nil
		})
}

func TestGoldenParallelOutOfOrder(t *testing.T) {
	lr := newLoopRun(t, nil,
		calls(call("c1", "wait", `{"after":"c3"}`), call("c2", "wait", `{}`), call("c3", "wait", `{"after":"c2"}`)),
		say("all done"),
	)
	lr.tools = []host.Tool{waitTool(lr.rec)}
	lr.cfg.MaxConcurrency = 0 // all three run at once; the tools fix the order
	lr.run(user("go"))
	lr.golden("parallel_out_of_order")
}

func TestGoldenSequentialMode(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{hosttest.Echo("echo")},
		calls(call("c1", "echo", `{"n":1}`), call("c2", "echo", `{"n":2}`)),
		say("ok"),
	)
	lr.cfg.ToolExecution = host.ExecutionSequential
	lr.run(user("go"))
	lr.golden("sequential_mode")
}

func TestGoldenPerToolSequential(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{hosttest.Echo("echo"), hosttest.Sequential(hosttest.Echo("write"))},
		calls(call("c1", "echo", `{"n":1}`), call("c2", "write", `{"n":2}`), call("c3", "echo", `{"n":3}`)),
		say("ok"),
	).run(user("go"))
	lr.golden("per_tool_sequential")
}

func TestGoldenToolNotFound(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{hosttest.Echo("echo")},
		calls(call("c1", "nope", `{}`), call("c2", "echo", `{}`)),
		say("ok"),
	).run(user("go"))
	lr.golden("tool_not_found")
}

const countSchema = `{"type":"object","properties":{"count":{"type":"integer"},"flag":{"type":"boolean"},"label":{"type":"string"}},"required":["count"]}`

func TestGoldenValidationAndCoercion(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{hosttest.Tool("count", countSchema,
		func(_ context.Context, _ string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
			return host.ToolResult{Content: host.Text(string(args))}, nil
		})},
		calls(
			call("c1", "count", `{"count":"3","flag":"true","label":7}`),
			call("c2", "count", `{"flag":1}`),
			call("c3", "count", `{"count":"abc"}`),
		),
		say("ok"),
	).run(user("go"))
	lr.golden("validation_and_coercion")
}

// Coercion uses JavaScript's Number() and String() (jsnumber.go); the
// coerced arguments keep the model's key order, as JavaScript objects do.
func TestGoldenCoercionJS(t *testing.T) {
	echo := func(_ context.Context, _ string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		return host.ToolResult{Content: host.Text(string(args))}, nil
	}
	lr := newLoopRun(t, []host.Tool{hosttest.Tool("js", `{"type":"object","properties":{"n":{"type":"number"},"i":{"type":"integer"},"s":{"type":"string"},"b":{"type":"boolean"},"z":{"type":"null"}}}`, echo)},
		calls(
			call("c1", "js", `{"n":"0x10","i":"0b11","s":1e-7}`),
			call("c2", "js", `{"s":0.000001,"n":" 12 ","i":"0o7"}`),
			call("c3", "js", `{"i":"1e3","n":"1_000","s":1e+21}`),
			call("c4", "js", "{\"i\":\"\u00a012\u2028\",\"n\":\"0x1p4\",\"s\":123456789012345680000}"),
			call("c5", "js", `{"b":1,"i":"0x1F","n":"Infinity","s":1.5e+300,"z":0}`),
			call("c6", "js", `{"z":"","s":0.1,"n":"-.5e1","i":"12.0","b":"true"}`),
		),
		say("ok"),
	).run(user("go"))
	lr.golden("coercion_js")
}

func TestGoldenPrepareArguments(t *testing.T) {
	tool := hosttest.Tool("read", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`,
		func(_ context.Context, _ string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
			return host.ToolResult{Content: host.Text(string(args))}, nil
		})
	tool.Prepare = func(args json.RawMessage) (json.RawMessage, error) {
		var old struct {
			File string `json:"file"`
		}
		if json.Unmarshal(args, &old) == nil && old.File != "" {
			return json.Marshal(map[string]string{"path": old.File})
		}
		return args, nil
	}
	lr := newLoopRun(t, []host.Tool{tool},
		calls(call("c1", "read", `{"file":"old.txt"}`), call("c2", "read", `{"path":"new.txt"}`), call("c3", "read", `{"other":1}`)),
		say("ok"),
	).run(user("go"))
	lr.golden("prepare_arguments")
}

func TestGoldenBeforeHookBlock(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{hosttest.Echo("echo"), hosttest.Echo("danger")},
		calls(call("c1", "echo", `{}`), call("c2", "danger", `{"why":"reason"}`), call("c3", "danger", `{}`)),
		say("ok"),
	)
	lr.cfg.BeforeToolCall = []host.BeforeToolCallHook{host.BeforeToolCallFunc(
		func(_ context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
			if c.ToolCall.Name != "danger" {
				return nil, nil
			}
			if string(c.Args) == `{"why":"reason"}` {
				return &host.BeforeToolCallResult{Block: true, Reason: "danger is not allowed here"}, nil
			}
			return &host.BeforeToolCallResult{Block: true}, nil
		})}
	lr.run(user("go"))
	lr.golden("before_hook_block")
}

func TestGoldenExecuteError(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{
		hosttest.Tool("fail", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
			return host.ToolResult{}, errors.New("disk full")
		}),
		hosttest.Tool("crash", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
			panic("index out of range")
		}),
	},
		calls(call("c1", "fail", `{}`), call("c2", "crash", `{}`)),
		say("ok"),
	).run(user("go"))
	lr.golden("execute_error")
}

func TestGoldenAfterHookOverride(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{hosttest.Echo("echo")},
		calls(call("c1", "echo", `{"secret":"hunter2"}`), call("c2", "echo", `{"plain":1}`)),
		say("ok"),
	)
	lr.cfg.AfterToolCall = []host.AfterToolCallHook{
		host.AfterToolCallFunc(func(_ context.Context, c *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
			if c.ToolCall.ID == "c1" {
				return &host.AfterToolCallResult{Content: host.Text("[redacted]"), IsError: host.Bool(true), Details: map[string]any{"redacted": 1}}, nil
			}
			return &host.AfterToolCallResult{}, nil // keeps every field
		}),
		host.AfterToolCallFunc(func(_ context.Context, c *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
			if c.ToolCall.ID == "c1" {
				// The second hook sees the first one's result.
				return &host.AfterToolCallResult{Content: host.Text(c.Result.Content.TextOf() + " (checked)")}, nil
			}
			return nil, nil
		}),
	}
	lr.run(user("go"))
	lr.golden("after_hook_override")
}

func TestGoldenAfterHookFailure(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{hosttest.Echo("echo")},
		calls(call("c1", "echo", `{}`), call("c2", "echo", `{"boom":true}`)),
		say("ok"),
	)
	lr.cfg.AfterToolCall = []host.AfterToolCallHook{host.AfterToolCallFunc(
		func(_ context.Context, c *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
			if c.ToolCall.ID == "c2" {
				return nil, errors.New("audit log unavailable")
			}
			return nil, nil
		})}
	lr.run(user("go"))
	lr.golden("after_hook_failure")
}

func terminating(name string, terminate *bool) *host.ToolFunc {
	return hosttest.Tool(name, "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
		return host.ToolResult{Content: host.Text(name), Terminate: terminate}, nil
	})
}

func TestGoldenTerminateAll(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{terminating("stop", host.Bool(true))},
		calls(call("c1", "stop", `{}`), call("c2", "stop", `{}`)),
		say("never requested"),
	).run(user("go"))
	lr.golden("terminate_all")
}

func TestGoldenTerminateMixed(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{terminating("stop", host.Bool(true)), terminating("go", nil)},
		calls(call("c1", "stop", `{}`), call("c2", "go", `{}`)),
		say("continued"),
	).run(user("go"))
	lr.golden("terminate_mixed")
}

// terminate:false is a value, not an absence: it stays in the tool's result
// and in an after-hook's merge (pi's `??`).
func TestGoldenTerminateFalse(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{terminating("keep", host.Bool(false)), terminating("stop", host.Bool(true))},
		calls(call("c1", "keep", `{}`), call("c2", "stop", `{}`)),
		say("continued"),
	)
	lr.cfg.AfterToolCall = []host.AfterToolCallHook{host.AfterToolCallFunc(
		func(_ context.Context, c *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
			if c.ToolCall.ID == "c2" {
				return &host.AfterToolCallResult{Terminate: host.Bool(false)}, nil
			}
			return nil, nil
		})}
	lr.run(user("go"))
	lr.golden("terminate_false")
}

// A slow subscriber delays delivery, never the tool. pi's recording runs c1
// (100 ms, an update at 10 ms) beside c2 (250 ms) with a listener sleeping
// 200 ms on c1's update. Here explicit waits replace the clock: the listener
// holds c1's update until c1's tool has returned (which it cannot do if
// sending the update waits for delivery), and c2 ends after c1 has.
func TestGoldenSlowSubscriber(t *testing.T) {
	returned := make(chan struct{})
	lr := newLoopRun(t, nil,
		calls(call("c1", "work", `{"ms":100,"updateAt":10}`), call("c2", "work", `{"ms":250}`)),
		say("ok"),
	)
	lr.tools = []host.Tool{hosttest.Tool("work", `{"type":"object","properties":{"ms":{"type":"integer"},"updateAt":{"type":"integer"}}}`,
		func(_ context.Context, id string, _ json.RawMessage, onUpdate host.UpdateFunc) (host.ToolResult, error) {
			if id == "c1" {
				onUpdate(map[string]any{"at": 10})
				close(returned)
			} else if !lr.rec.WaitFor(5*time.Second, hosttest.Ended("c1")) {
				return host.ToolResult{}, errors.New("timed out waiting for c1")
			}
			return host.ToolResult{Content: host.Text("done " + id)}, nil
		})}
	lr.cfg.MaxConcurrency = 0
	record := lr.rec.Sink
	stalled := false
	lr.sink = func(ctx context.Context, e host.Event) error {
		if u, ok := e.(host.ToolExecutionUpdateEvent); ok && u.ToolCallID == "c1" {
			select {
			case <-returned:
			case <-time.After(5 * time.Second):
				stalled = true
			}
		}
		return record(ctx, e)
	}
	lr.run(user("go"))
	if stalled {
		t.Fatal("the tool waited for its update to be delivered")
	}
	lr.golden("slow_subscriber")
}

func TestGoldenShouldStopAfterTurn(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{hosttest.Echo("echo")},
		calls(call("c1", "echo", `{}`)),
		say("never requested"),
	)
	lr.cfg.ShouldStopAfterTurn = func(context.Context, host.TurnInfo) bool { return true }
	lr.cfg.FollowUpMessages = func(context.Context) []host.Message { return []host.Message{user("ignored")} }
	lr.run(user("go"))
	lr.golden("should_stop_after_turn")
}

func TestGoldenErrorStopReason(t *testing.T) {
	turn := calls(call("c1", "echo", `{}`))
	turn.StopReason = host.StopReasonError
	turn.ErrorMessage = "upstream overloaded"
	lr := newLoopRun(t, []host.Tool{hosttest.Echo("echo")}, turn).run(user("go"))
	lr.golden("error_stop_reason")
}

// agentRun drives an Agent over a scripted model, recording its events.
func newAgent(t *testing.T, opts host.AgentOptions, turns ...scripted.Turn) (*host.Agent, *hosttest.Recorder, *scripted.Model) {
	m := scripted.Of(turns...)
	opts.Model = m
	if opts.SystemPrompt == "" {
		opts.SystemPrompt = "You are a test."
	}
	a := host.NewAgent(opts)
	rec := hosttest.NewRecorder()
	a.Subscribe(rec.Sink)
	return a, rec, m
}

// steerTool queues steering messages from inside a tool call, so that they
// are waiting when the turn ends.
func steerTool(a **host.Agent) *host.ToolFunc {
	return hosttest.Tool("steer", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
		(*a).Steer(user("steer one"))
		(*a).Steer(user("steer two"))
		return host.ToolResult{Content: host.Text("queued")}, nil
	})
}

func testSteering(t *testing.T, mode host.QueueMode, name string, turns ...scripted.Turn) {
	var a *host.Agent
	a, rec, _ := newAgent(t, host.AgentOptions{SteeringMode: mode, Tools: []host.Tool{steerTool(&a)}}, turns...)
	if err := a.Prompt(context.Background(), user("go")); err != nil {
		t.Fatal(err)
	}
	golden(t, rec, name)
}

func TestGoldenSteeringOneAtATime(t *testing.T) {
	testSteering(t, host.OneAtATime, "steering_one_at_a_time",
		calls(call("c1", "steer", `{}`)), say("first"), say("second"))
}

func TestGoldenSteeringAll(t *testing.T) {
	testSteering(t, host.AllAtOnce, "steering_all",
		calls(call("c1", "steer", `{}`)), say("both"))
}

func TestGoldenFollowUp(t *testing.T) {
	a, rec, _ := newAgent(t, host.AgentOptions{}, say("answer"), say("follow-up answer"))
	a.FollowUp(user("and then?"))
	if err := a.Prompt(context.Background(), user("question")); err != nil {
		t.Fatal(err)
	}
	golden(t, rec, "follow_up")
}

func TestGoldenAbortDuringTools(t *testing.T) {
	started := make(chan struct{})
	var rec *hosttest.Recorder
	block := hosttest.Tool("block", "", func(ctx context.Context, _ string, _ json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		rec.WaitFor(5*time.Second, hosttest.Ended("c2")) // fix the end order
		close(started)
		<-ctx.Done()
		return host.ToolResult{}, ctx.Err()
	})
	a, rec, m := newAgent(t, host.AgentOptions{Tools: []host.Tool{block, hosttest.Echo("echo")}},
		calls(call("c1", "block", `{}`), call("c2", "echo", `{}`)),
		say("never streamed"),
	)
	go func() {
		<-started
		a.Abort()
	}()
	a.Prompt(context.Background(), user("go"))
	golden(t, rec, "abort_during_tools")
	if got := len(m.Requests()); got != 2 {
		t.Fatalf("model requests = %d, want 2 (one more request after the abort, docs/loop.md 9.2)", got)
	}
}

func TestGoldenContinue(t *testing.T) {
	m := scripted.Of(say("continued"))
	rec := hosttest.NewRecorder()
	c := &host.Context{Messages: []host.Message{user("retry me")}}
	if _, err := host.RunLoopContinue(context.Background(), c, &host.Config{Model: m}, rec.Sink); err != nil {
		t.Fatal(err)
	}
	golden(t, rec, "continue")
}
