package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// Tests named TestRuleS_N check rule N of docs/loop.md section S (sub-rules as
// S_N_M). Rules whose whole effect is an event order are covered by the
// golden streams (golden_test.go), which TestMatchesPi checks against pi:
//
//	3.1, 3.2, 4.1–4.4, 4.6, 4.8     every golden (prologue, turns, results)
//	4.9                             should_stop_after_turn
//	4.10, 7.1–7.4                   steering_one_at_a_time, steering_all
//	4.11, 8.1                       follow_up
//	4.14, 6.7.3                     terminate_all, terminate_mixed
//	5.4, 5.5                        plain_text (updates, start partial)
//	6.2, 6.3                        parallel_out_of_order, sequential_mode
//	6.4.1, 6.4.2                    tool_not_found, prepare_arguments
//	6.5                             execute_error, parallel_out_of_order
//	6.6                             after_hook_override, after_hook_failure
//	9.1–9.3                         abort_during_tools
//
// Not applicable in Go: 2.1 (no EventStream object: RunLoop takes a sink),
// 5.2 (API keys are the model adapter's), 5.6 (partials are copies here).

func TestRule2_2_ContinuePreconditions(t *testing.T) {
	cfg := &host.Config{Model: scripted.Of()}
	sink := hosttest.NewRecorder().Sink
	if _, err := host.RunLoopContinue(context.Background(), &host.Context{}, cfg, sink); !errors.Is(err, host.ErrContinueEmpty) {
		t.Fatalf("empty context: %v", err)
	}
	c := &host.Context{Messages: []host.Message{user("q"), &host.AssistantMessage{StopReason: host.StopReasonStop}}}
	if _, err := host.RunLoopContinue(context.Background(), c, cfg, sink); !errors.Is(err, host.ErrContinueFromAssistant) {
		t.Fatalf("from assistant: %v", err)
	}
	if err := host.ErrContinueFromAssistant.Error(); err != "Cannot continue from message role: assistant" {
		t.Fatalf("text: %q", err)
	}
	// Any other last role is accepted, custom roles included.
	c = &host.Context{Messages: []host.Message{&host.CustomMessage{Role: "note"}}}
	if _, err := host.RunLoopContinue(context.Background(), c, &host.Config{Model: scripted.Of(say("ok"))}, sink); err != nil {
		t.Fatalf("custom role: %v", err)
	}
}

func TestRule2_4_CallerContextNotModified(t *testing.T) {
	c := &host.Context{Messages: make([]host.Message, 1, 8), Tools: []host.Tool{hosttest.Echo("echo")}}
	c.Messages[0] = user("first")
	m := scripted.Of(calls(call("c1", "echo", `{}`)), say("ok"))
	got, err := host.RunLoop(context.Background(), []host.Message{user("second")}, c, &host.Config{Model: m}, hosttest.NewRecorder().Sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Messages) != 1 || c.Messages[:2][1] != nil {
		t.Fatalf("caller's messages changed: %d, spare slot %v", len(c.Messages), c.Messages[:2][1])
	}
	// 4.13: the result is the prompt, assistant, tool result, assistant.
	if len(got) != 4 {
		t.Fatalf("new messages = %d, want 4", len(got))
	}
}

func TestRule3_3_InitialSteeringPoll(t *testing.T) {
	lr := newLoopRun(t, nil, say("ok"))
	polls := 0
	lr.cfg.SteeringMessages = func(context.Context) []host.Message {
		polls++
		if polls == 1 {
			return []host.Message{user("typed while waiting")}
		}
		return nil
	}
	lr.run(user("prompt"))
	equal(t, types(lr.rec)[:8], []string{
		"agent_start", "turn_start",
		"message_start user", "message_end user",
		"message_start user", "message_end user", // injected with no extra turn_start
		"message_start assistant", "message_end assistant",
	})
	if polls != 2 {
		t.Fatalf("steering polled %d times, want 2 (start and after the turn)", polls)
	}
}

func TestRule4_5_ErrorShortCircuit(t *testing.T) {
	for _, reason := range []host.StopReason{host.StopReasonError, host.StopReasonAborted} {
		turn := calls(call("c1", "echo", `{}`))
		turn.StopReason = reason
		executed := false
		tool := hosttest.Tool("echo", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
			executed = true
			return host.ToolResult{}, nil
		})
		lr := newLoopRun(t, []host.Tool{tool}, turn)
		consulted := false
		lr.cfg.ShouldStopAfterTurn = func(context.Context, host.TurnInfo) bool { consulted = true; return false }
		lr.cfg.FollowUpMessages = func(context.Context) []host.Message { consulted = true; return nil }
		lr.run(user("go"))
		got := types(lr.rec)
		if executed || consulted || got[len(got)-2] != "turn_end" || got[len(got)-1] != "agent_end" {
			t.Fatalf("%s: executed=%v consulted=%v events=%q", reason, executed, consulted, got)
		}
	}
}

func TestRule4_7_HooksNeverSeeSiblingResults(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{hosttest.Echo("echo")},
		calls(call("c1", "echo", `{}`), call("c2", "echo", `{}`)), say("ok"))
	lr.cfg.ToolExecution = host.ExecutionSequential
	var seen []int
	lr.cfg.BeforeToolCall = []host.BeforeToolCallHook{host.BeforeToolCallFunc(
		func(_ context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
			n := 0
			for _, m := range c.Context.Messages {
				if m.MessageRole() == host.RoleToolResult {
					n++
				}
			}
			seen = append(seen, n)
			if last := c.Context.Messages[len(c.Context.Messages)-1]; last != host.Message(c.AssistantMessage) {
				t.Errorf("5.7: the context does not end with the assistant message")
			}
			return nil, nil
		})}
	lr.run(user("go"))
	if len(seen) != 2 || seen[0] != 0 || seen[1] != 0 {
		t.Fatalf("tool results visible to hooks: %v", seen)
	}
}

func TestRule4_12_FollowUpAfterTerminate(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{terminating("stop", host.Bool(true))}, calls(call("c1", "stop", `{}`)), say("follow-up answered"))
	given := false
	lr.cfg.FollowUpMessages = func(context.Context) []host.Message {
		if given {
			return nil
		}
		given = true
		return []host.Message{user("one more")}
	}
	lr.run(user("go"))
	if lr.model.Remaining() != 0 {
		t.Fatal("a queued follow-up did not start a new turn after a terminating batch")
	}
}

func TestRule5_3_EventsBeforeStartDropped(t *testing.T) {
	m := host.ModelFunc(func(_ context.Context, _ *host.Request, emit func(host.AssistantMessageEvent)) *host.AssistantMessage {
		emit(host.AssistantMessageEvent{Type: host.StreamTextDelta, Delta: "lost"})
		return &host.AssistantMessage{Content: host.Text("final"), StopReason: host.StopReasonStop}
	})
	rec := hosttest.NewRecorder()
	if _, err := host.RunLoop(context.Background(), []host.Message{user("q")}, &host.Context{}, &host.Config{Model: m}, rec.Sink); err != nil {
		t.Fatal(err)
	}
	// No start: the final message gets both message_start and message_end.
	equal(t, rec.Types(), []string{"agent_start", "turn_start", "message_start user", "message_end user",
		"message_start assistant", "message_end assistant", "turn_end", "agent_end"})
}

func TestRule6_1_ModeChoice(t *testing.T) {
	// A parallel tool cannot override a global sequential; an unknown name
	// does not make a batch sequential.
	par := hosttest.Echo("par")
	par.ExecutionMode = host.ExecutionParallel
	for _, tc := range []struct {
		name   string
		global host.ExecutionMode
		calls  []host.ToolCall
		want   []string
	}{
		{"global sequential wins", host.ExecutionSequential, []host.ToolCall{call("a", "par", `{}`), call("b", "par", `{}`)},
			[]string{"tool_execution_start a", "tool_execution_end a", "message_start toolResult a"}},
		{"unknown tool ignored", "", []host.ToolCall{call("a", "par", `{}`), call("b", "nope", `{}`)},
			[]string{"tool_execution_start a", "tool_execution_start b", "tool_execution_end b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := newLoopRun(t, []host.Tool{par}, calls(tc.calls...), say("ok"))
			lr.cfg.ToolExecution = tc.global
			lr.run(user("go"))
			got := types(lr.rec)[6:9]
			equal(t, got, tc.want)
		})
	}
}

func TestRule6_2_1_StartCarriesRawArgs(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{hosttest.Tool("n", `{"type":"object","properties":{"x":{"type":"number"}}}`,
		func(_ context.Context, _ string, args json.RawMessage, up host.UpdateFunc) (host.ToolResult, error) {
			up("p")
			return host.ToolResult{Content: host.Text(string(args))}, nil
		})}, calls(call("c1", "n", `{"x":"5"}`)), say("ok")).run(user("go"))
	for _, e := range lr.rec.Events() {
		switch e := e.(type) {
		case host.ToolExecutionStartEvent:
			if string(e.Args) != `{"x":"5"}` {
				t.Fatalf("start args %s, want raw", e.Args)
			}
		case host.ToolExecutionUpdateEvent:
			if string(e.Args) != `{"x":"5"}` {
				t.Fatalf("update args %s, want raw", e.Args)
			}
		case host.ToolExecutionEndEvent:
			if got := e.Result.Content.TextOf(); got != `{"x":5}` {
				t.Fatalf("execute got %s, want coerced", got)
			}
		}
	}
}

func TestRule6_4_3_Coercion(t *testing.T) {
	schema := `{"type":"object","properties":{
		"n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean"},"s":{"type":"string"},"z":{"type":"null"},
		"arr":{"type":"array","items":{"type":"integer"}},
		"u":{"anyOf":[{"type":"boolean"},{"type":"integer"}]},
		"m":{"type":"object","additionalProperties":{"type":"number"}}}}`
	s, err := host.CompileSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"n":"1.5"}`, `{"n":1.5}`},
		{`{"n":null}`, `{"n":0}`},
		{`{"n":true}`, `{"n":1}`},
		{`{"i":"42"}`, `{"i":42}`},
		{`{"b":"false"}`, `{"b":false}`},
		{`{"b":1}`, `{"b":true}`},
		{`{"b":null}`, `{"b":false}`},
		{`{"s":12}`, `{"s":"12"}`},
		{`{"s":false}`, `{"s":"false"}`},
		{`{"s":null}`, `{"s":""}`},
		{`{"z":""}`, `{"z":null}`},
		{`{"z":0}`, `{"z":null}`},
		{`{"arr":["1","2"]}`, `{"arr":[1,2]}`},
		{`{"u":"true"}`, `{"u":true}`},
		{`{"m":{"a":"3"}}`, `{"m":{"a":3}}`},
		{`{"n":9007199254740993}`, `{"n":9007199254740993}`}, // no precision lost
	} {
		got, err := s.ValidateArguments("t", json.RawMessage(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("%s → %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`{"i":"1.5"}`, `{"n":" "}`, `{"b":"yes"}`} {
		if _, err := s.ValidateArguments("t", json.RawMessage(bad)); err == nil {
			t.Errorf("%s validated", bad)
		}
	}
}

func TestRule6_4_3_ValidationMessageFrame(t *testing.T) {
	s, _ := host.CompileSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","required":["b"]}},"required":["x"]}`))
	_, err := s.ValidateArguments("tool1", json.RawMessage(`{"a":{}}`))
	if err == nil {
		t.Fatal("no error")
	}
	want := "Validation failed for tool \"tool1\":\n  - "
	if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "\n\nReceived arguments:\n{\n  \"a\": {}\n}") {
		t.Fatalf("frame:\n%s", err)
	}
	for _, path := range []string{"  - x: ", "  - a.b: "} {
		if !strings.Contains(err.Error(), path) {
			t.Errorf("missing %q in\n%s", path, err)
		}
	}
}

func TestRule6_4_4_EmptyReasonGivesDefault(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{hosttest.Echo("echo")}, calls(call("c1", "echo", `{}`)), say("ok"))
	var afterCalled bool
	lr.cfg.BeforeToolCall = []host.BeforeToolCallHook{
		host.BeforeToolCallFunc(func(context.Context, *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
			return &host.BeforeToolCallResult{Block: true, Reason: ""}, nil
		}),
		host.BeforeToolCallFunc(func(context.Context, *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
			t.Error("a later before-hook ran after a block")
			return nil, nil
		}),
	}
	lr.cfg.AfterToolCall = []host.AfterToolCallHook{host.AfterToolCallFunc(
		func(context.Context, *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
			afterCalled = true
			return nil, nil
		})}
	lr.run(user("go"))
	if text, isErr := resultText(t, lr.rec, "c1"); text != "Tool execution was blocked" || !isErr {
		t.Fatalf("got %q %v", text, isErr)
	}
	if afterCalled {
		t.Fatal("6.4.6: afterToolCall ran for an immediate result")
	}
}

func TestRule6_4_5_HookPanicBecomesErrorResult(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{hosttest.Echo("echo")}, calls(call("c1", "echo", `{}`), call("c2", "echo", `{}`)), say("ok"))
	lr.cfg.BeforeToolCall = []host.BeforeToolCallHook{host.BeforeToolCallFunc(
		func(_ context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
			if c.ToolCall.ID == "c1" {
				panic("hook bug")
			}
			return nil, nil
		})}
	lr.run(user("go"))
	if text, isErr := resultText(t, lr.rec, "c1"); !isErr || !strings.Contains(text, "hook bug") {
		t.Fatalf("c1: %q %v", text, isErr)
	}
	if _, isErr := resultText(t, lr.rec, "c2"); isErr {
		t.Fatal("c2 failed too")
	}
}

func TestRule6_6_NilKeepsAndIsErrorFlips(t *testing.T) {
	fail := hosttest.Tool("fail", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
		return host.ToolResult{}, errors.New("boom")
	})
	lr := newLoopRun(t, []host.Tool{fail}, calls(call("c1", "fail", `{}`)), say("ok"))
	lr.cfg.AfterToolCall = []host.AfterToolCallHook{host.AfterToolCallFunc(
		func(context.Context, *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
			return &host.AfterToolCallResult{IsError: host.Bool(false), Details: json.RawMessage("null")}, nil
		})}
	lr.run(user("go"))
	end := toolEnds(lr.rec)[0]
	if end.IsError || end.Result.Content.TextOf() != "boom" {
		t.Fatalf("got %+v", end)
	}
	if d, ok := end.Result.Details.(map[string]any); !ok || len(d) != 0 {
		t.Fatalf("null details replaced the value: %#v", end.Result.Details)
	}
}

func TestRule6_7_2_TerminateNeverReachesMessage(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{terminating("stop", host.Bool(true))}, calls(call("c1", "stop", `{}`))).run(user("go"))
	te := lastTurnEnd(t, lr.rec)
	b, _ := json.Marshal(te.ToolResults[0])
	if strings.Contains(string(b), "terminate") {
		t.Fatalf("terminate in message: %s", b)
	}
	if end := toolEnds(lr.rec)[0]; end.Result.Terminate == nil || !*end.Result.Terminate {
		t.Fatal("6.7.1: terminate missing from tool_execution_end")
	}
}

func TestRule6_7_3_ImmediateErrorsNeverTerminate(t *testing.T) {
	lr := newLoopRun(t, []host.Tool{terminating("stop", host.Bool(true))}, calls(call("c1", "stop", `{}`), call("c2", "nope", `{}`)), say("went on")).run(user("go"))
	if lr.model.Remaining() != 0 {
		t.Fatal("a batch with a not-found call terminated")
	}
}

func TestRule7_5_SkipInitialSteeringPoll(t *testing.T) {
	a, rec, _ := newAgent(t, host.AgentOptions{Messages: []host.Message{user("q"), &host.AssistantMessage{StopReason: host.StopReasonStop}}},
		say("one"), say("two"))
	a.Steer(user("s1"))
	a.Steer(user("s2"))
	if err := a.Continue(context.Background()); err != nil {
		t.Fatal(err)
	}
	equal(t, types(rec), []string{
		"agent_start", "turn_start", "message_start user", "message_end user",
		"message_start assistant", "message_end assistant", "turn_end",
		"turn_start", "message_start user", "message_end user",
		"message_start assistant", "message_end assistant", "turn_end", "agent_end",
	})
}

func TestRule8_2_FollowUpsKeptAfterError(t *testing.T) {
	turn := say("")
	turn.StopReason = host.StopReasonError
	a, _, _ := newAgent(t, host.AgentOptions{}, turn)
	a.FollowUp(user("later"))
	a.Prompt(context.Background(), user("q"))
	if !a.HasQueuedMessages() {
		t.Fatal("the follow-up queue was drained after an error")
	}
	if a.State().ErrorMessage != "" {
		// The scripted error turn has no errorMessage; the state only takes
		// a non-empty one (10.3).
		t.Fatalf("errorMessage %q", a.State().ErrorMessage)
	}
}

func TestRule9_4_AbortIdleIsNoOp(t *testing.T) {
	a, _, _ := newAgent(t, host.AgentOptions{}, say("ok"))
	a.Abort()
	if err := a.PromptText(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	if msgs := a.State().Messages; len(msgs) != 2 || msgs[1].(*host.AssistantMessage).StopReason != host.StopReasonStop {
		t.Fatalf("messages after an idle abort: %v", msgs)
	}
}

func TestRule10_3_Reducer(t *testing.T) {
	var a *host.Agent
	var sawPending, sawStreaming bool
	tool := hosttest.Tool("t", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
		s := a.State()
		sawPending = len(s.PendingToolCalls) == 1 && s.PendingToolCalls[0] == "c1"
		return host.ToolResult{Content: host.Text("ok")}, nil
	})
	a, _, _ = newAgent(t, host.AgentOptions{Tools: []host.Tool{tool}}, calls(call("c1", "t", `{}`)), say("done"))
	a.Subscribe(func(_ context.Context, e host.Event) error {
		if _, ok := e.(host.MessageUpdateEvent); ok {
			sawStreaming = a.State().StreamingMessage != nil
		}
		return nil
	})
	if err := a.Prompt(context.Background(), user("go")); err != nil {
		t.Fatal(err)
	}
	s := a.State()
	if !sawPending || !sawStreaming || s.IsStreaming || s.StreamingMessage != nil || len(s.PendingToolCalls) != 0 {
		t.Fatalf("pending=%v streaming=%v state=%+v", sawPending, sawStreaming, s)
	}
	var roles []string
	for _, m := range s.Messages {
		roles = append(roles, m.MessageRole())
	}
	equal(t, roles, []string{"user", "assistant", "toolResult", "assistant"})
}

// The pending calls are a set, as pi's: a second start of the same id
// adds nothing, its end removes it.
func TestRule10_3_PendingToolCallsAreASet(t *testing.T) {
	a, _, _ := newAgent(t, host.AgentOptions{Tools: []host.Tool{hosttest.Echo("t")}},
		calls(call("c1", "t", `{}`), call("c1", "t", `{}`), call("c2", "t", `{}`)), say("done"))
	var pending []string
	a.Subscribe(func(_ context.Context, e host.Event) error {
		if _, ok := e.(host.ToolExecutionStartEvent); ok {
			pending = append(pending, strings.Join(a.State().PendingToolCalls, "+"))
		}
		return nil
	})
	if err := a.Prompt(context.Background(), user("go")); err != nil {
		t.Fatal(err)
	}
	equal(t, pending, []string{"c1", "c1", "c1+c2"})
}

func TestRule10_7_IsStreamingDuringAgentEnd(t *testing.T) {
	a, _, _ := newAgent(t, host.AgentOptions{}, say("ok"))
	var during bool
	a.Subscribe(func(_ context.Context, e host.Event) error {
		if _, ok := e.(host.AgentEndEvent); ok {
			during = a.State().IsStreaming
			if err := a.Prompt(context.Background(), user("again")); !errors.Is(err, host.ErrPromptBusy) {
				t.Errorf("prompt during a run: %v", err)
			}
			if err := a.Continue(context.Background()); !errors.Is(err, host.ErrContinueBusy) {
				t.Errorf("continue during a run: %v", err)
			}
		}
		return nil
	})
	a.Prompt(context.Background(), user("go"))
	if !during {
		t.Fatal("isStreaming was false while agent_end listeners ran")
	}
}

func TestRule10_9_ListenerFailure(t *testing.T) {
	a, rec, _ := newAgent(t, host.AgentOptions{}, say("ok"))
	a.Subscribe(func(_ context.Context, e host.Event) error {
		if end, ok := e.(host.MessageEndEvent); ok && end.Message.MessageRole() == host.RoleAssistant {
			return errors.New("listener boom")
		}
		return nil
	})
	err := a.Prompt(context.Background(), user("q"))
	var re *host.RunError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want *RunError", err)
	}
	s := a.State()
	last := s.Messages[len(s.Messages)-1].(*host.AssistantMessage)
	if len(s.Messages) != 3 || last.StopReason != host.StopReasonError || last.ErrorMessage != "listener boom" || s.ErrorMessage != "listener boom" {
		t.Fatalf("state after failure: %d messages, last %+v", len(s.Messages), last)
	}
	got := types(rec)
	if got[len(got)-1] != "agent_end" || got[len(got)-2] != "message_end assistant" {
		t.Fatalf("no bare agent_end after the failure: %q", got)
	}
}

// The synthetic message names the Agent's model when the failure happens
// (pi reads its state then), not the one the run started with; a listener
// failing on its agent_end too makes the prompt fail with that error.
func TestRule10_9_FailureNamesTheCurrentModel(t *testing.T) {
	a, _, _ := newAgent(t, host.AgentOptions{}, say("ok"))
	later := scripted.New(&scripted.Script{Model: scripted.ModelInfo{API: "later-api", Provider: "later", ID: "later-1"}})
	ends := 0
	a.Subscribe(func(_ context.Context, e host.Event) error {
		switch e.(type) {
		case host.TurnStartEvent:
			a.SetModel(later)
			return errors.New("listener boom")
		case host.AgentEndEvent:
			if ends++; ends == 1 {
				return errors.New("again")
			}
		}
		return nil
	})
	err := a.Prompt(context.Background(), user("q"))
	var re *host.RunError
	if err == nil || err.Error() != "again" || !errors.As(err, &re) || re.Message.ErrorMessage != "listener boom" {
		t.Fatalf("err = %v, want the agent_end listener's, wrapping the run's", err)
	}
	s := a.State()
	last := s.Messages[len(s.Messages)-1].(*host.AssistantMessage)
	if last.API != "later-api" || last.Provider != "later" || last.Model != "later-1" || last.ErrorMessage != "listener boom" {
		t.Fatalf("failure message %+v, want the later model's labels", last)
	}
}

func TestRule10_9_ModelPanicAndNoModel(t *testing.T) {
	m := host.ModelFunc(func(context.Context, *host.Request, func(host.AssistantMessageEvent)) *host.AssistantMessage {
		panic("model bug")
	})
	for name, model := range map[string]host.Model{"panic": m, "nil": nil} {
		rec := hosttest.NewRecorder()
		msgs, err := host.RunLoop(context.Background(), []host.Message{user("q")}, &host.Context{}, &host.Config{Model: model}, rec.Sink)
		var re *host.RunError
		if !errors.As(err, &re) || len(msgs) != 1 || msgs[0] != host.Message(re.Message) {
			t.Fatalf("%s: %v %v", name, msgs, err)
		}
		equal(t, types(rec), []string{"agent_start", "turn_start", "message_start user", "message_end user", "agent_end"})
	}
}

func TestRule10_10_ResetKeepsRun(t *testing.T) {
	a, _, _ := newAgent(t, host.AgentOptions{Messages: []host.Message{user("old")}})
	a.Steer(user("s"))
	a.FollowUp(user("f"))
	a.Reset()
	if s := a.State(); len(s.Messages) != 0 || a.HasQueuedMessages() {
		t.Fatalf("reset left %d messages, queued=%v", len(s.Messages), a.HasQueuedMessages())
	}
	if err := a.Continue(context.Background()); !errors.Is(err, host.ErrNoMessages) {
		t.Fatalf("continue on empty: %v", err)
	}
}

func TestRule10_6_ContinueFromAssistantWithFollowUp(t *testing.T) {
	a, rec, _ := newAgent(t, host.AgentOptions{Messages: []host.Message{user("q"), &host.AssistantMessage{StopReason: host.StopReasonStop}}}, say("a"))
	if err := a.Continue(context.Background()); !errors.Is(err, host.ErrContinueFromAssistant) {
		t.Fatalf("no queue: %v", err)
	}
	a.FollowUp(user("f"))
	if err := a.Continue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := types(rec); got[2] != "message_start user" {
		t.Fatalf("the follow-up was not the prompt: %q", got)
	}
}

func TestAbortReachesRunningTool(t *testing.T) {
	var done atomic.Bool
	tool := hosttest.Tool("slow", "", func(ctx context.Context, _ string, _ json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		select {
		case <-ctx.Done():
			done.Store(true)
			return host.ToolResult{}, ctx.Err()
		case <-time.After(10 * time.Second):
			return host.ToolResult{}, errors.New("not aborted")
		}
	})
	a, _, _ := newAgent(t, host.AgentOptions{Tools: []host.Tool{tool}}, calls(call("c1", "slow", `{}`)), say("x"))
	go func() {
		for len(a.State().PendingToolCalls) == 0 {
			time.Sleep(time.Millisecond)
		}
		a.Abort()
	}()
	a.Prompt(context.Background(), user("go"))
	if !done.Load() {
		t.Fatal("the tool did not see the abort")
	}
	msgs := a.State().Messages
	if last := msgs[len(msgs)-1].(*host.AssistantMessage); last.StopReason != host.StopReasonAborted {
		t.Fatalf("last stop reason %q", last.StopReason)
	}
}

func TestMaxConcurrency(t *testing.T) {
	var running, peak atomic.Int32
	tool := hosttest.Tool("t", "", func(context.Context, string, json.RawMessage, host.UpdateFunc) (host.ToolResult, error) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		running.Add(-1)
		return host.ToolResult{}, nil
	})
	var cs []host.ToolCall
	for i := range 8 {
		cs = append(cs, call(string(rune('a'+i)), "t", `{}`))
	}
	lr := newLoopRun(t, []host.Tool{tool}, calls(cs...), say("ok"))
	lr.cfg.MaxConcurrency = 2
	lr.run(user("go"))
	if peak.Load() > 2 {
		t.Fatalf("peak concurrency %d with a cap of 2", peak.Load())
	}
	if len(lastTurnEnd(t, lr.rec).ToolResults) != 0 { // last turn is the text reply
		t.Fatal("unexpected results on the last turn")
	}
}

func TestRule5_8_EventsAfterDoneIgnored(t *testing.T) {
	m := host.ModelFunc(func(_ context.Context, _ *host.Request, emit func(host.AssistantMessageEvent)) *host.AssistantMessage {
		final := &host.AssistantMessage{Content: host.Text("a"), StopReason: host.StopReasonStop}
		emit(host.AssistantMessageEvent{Type: host.StreamStart, Partial: &host.AssistantMessage{StopReason: host.StopReasonStop}})
		emit(host.AssistantMessageEvent{Type: host.StreamDone, Reason: host.StopReasonStop, Message: final})
		emit(host.AssistantMessageEvent{Type: host.StreamTextDelta, Delta: "late", Partial: final})
		emit(host.AssistantMessageEvent{Type: host.StreamDone, Reason: host.StopReasonStop, Message: final})
		return &host.AssistantMessage{Content: host.Text("other"), StopReason: host.StopReasonStop}
	})
	rec := hosttest.NewRecorder()
	msgs, err := host.RunLoop(context.Background(), []host.Message{user("q")}, &host.Context{}, &host.Config{Model: m}, rec.Sink)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, rec.Types(), []string{"agent_start", "turn_start", "message_start user", "message_end user",
		"message_start assistant", "message_end assistant", "turn_end", "agent_end"})
	if got := msgs[1].(*host.AssistantMessage).Content.TextOf(); got != "a" {
		t.Fatalf("final message is %q, want the one of the done event", got)
	}
}

func TestRule10_4_ListenersInOrderAndUnsubscribe(t *testing.T) {
	a, _, _ := newAgent(t, host.AgentOptions{}, say("ok"))
	var order []string
	a.Subscribe(func(_ context.Context, e host.Event) error {
		if _, ok := e.(host.AgentStartEvent); ok {
			order = append(order, "first")
		}
		return nil
	})
	off := a.Subscribe(func(context.Context, host.Event) error { order = append(order, "removed"); return nil })
	a.Subscribe(func(_ context.Context, e host.Event) error {
		if _, ok := e.(host.AgentStartEvent); ok {
			order = append(order, "third")
		}
		return nil
	})
	off()
	a.Prompt(context.Background(), user("q"))
	equal(t, order, []string{"first", "third"})
}

// A listener subscribed by an earlier one while an event is delivered gets
// that event too; one unsubscribed before its turn does not (pi iterates
// a Set, which sees additions and removals made during the iteration).
func TestRule10_4_SubscribeDuringEvent(t *testing.T) {
	a, _, _ := newAgent(t, host.AgentOptions{}, say("ok"))
	var got []string
	late := func(_ context.Context, e host.Event) error {
		got = append(got, "late "+hosttest.Describe(e))
		return nil
	}
	var offLate, offVictim func()
	a.Subscribe(func(_ context.Context, e host.Event) error {
		switch hosttest.Describe(e) {
		case "turn_start":
			offLate = a.Subscribe(late)
		case "message_end assistant":
			offLate()
			offVictim()
		}
		return nil
	})
	offVictim = a.Subscribe(func(_ context.Context, e host.Event) error {
		got = append(got, "victim "+hosttest.Describe(e))
		return nil
	})
	a.Prompt(context.Background(), user("q"))
	equal(t, got, []string{"victim agent_start", "victim turn_start", "late turn_start",
		"victim message_start user", "late message_start user", "victim message_end user", "late message_end user",
		"victim message_start assistant", "late message_start assistant", "victim message_update text_start", "late message_update text_start",
		"victim message_update text_delta", "late message_update text_delta", "victim message_update text_end", "late message_update text_end"})
}

func TestRule10_8_WaitForIdle(t *testing.T) {
	a, _, _ := newAgent(t, host.AgentOptions{}, scripted.Turn{Content: host.Text("slow"), DelayMs: 50})
	if err := a.WaitForIdle(context.Background()); err != nil {
		t.Fatalf("idle agent: %v", err)
	}
	started := make(chan struct{})
	a.Subscribe(func(_ context.Context, e host.Event) error {
		if _, ok := e.(host.AgentStartEvent); ok {
			close(started)
		}
		return nil
	})
	go a.PromptText(context.Background(), "q")
	<-started
	if err := a.WaitForIdle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := a.State(); s.IsStreaming || len(s.Messages) != 2 {
		t.Fatalf("after WaitForIdle: streaming=%v, %d messages", s.IsStreaming, len(s.Messages))
	}
}
