package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/hosttest"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// piWaitTimeout bounds a tool's wait for another call's end (diff.mjs has
// the same, 20 s): a scenario that cannot finish fails with a message, not a hang.
const piWaitTimeout = 20 * time.Second

// piHarness runs a piScenario on our loop as diff.mjs runs it on pi.
type piHarness struct {
	sc    *piScenario
	rec   *hosttest.Recorder
	abort func()

	mu            sync.Mutex
	seen          map[string]int
	steer, follow []host.Message
	agent         *host.Agent
	unsubscribe2  func()           // the second listener's, while it is subscribed
	extra         map[int][][]byte // harness lines, by the number of events before them
}

// runPiScenario returns the events of sc on our loop as JSON lines (and a
// {"type":"harness_error"} line for each error a call of the API returned).
func runPiScenario(sc *piScenario) ([][]byte, error) {
	h := &piHarness{sc: sc, rec: hosttest.NewRecorder(), seen: map[string]int{}, extra: map[int][][]byte{}, abort: func() {}}
	model, err := h.model()
	if err != nil {
		return nil, err
	}
	tools := h.tools()
	var before []host.BeforeToolCallHook
	var after []host.AfterToolCallHook
	if sc.BeforeHook {
		before = []host.BeforeToolCallHook{host.BeforeToolCallFunc(h.before)}
	}
	if sc.AfterHook {
		after = []host.AfterToolCallHook{host.AfterToolCallFunc(h.after)}
	}
	prompts := make([]host.Message, len(sc.Prompts))
	for i, p := range sc.Prompts {
		prompts[i] = piMessage(p)
	}
	var convert func(context.Context, []host.Message) ([]host.Message, error)
	if sc.ConvertNotes || sc.ConvertFail > 0 {
		convert = convertNotesOrFail(sc)
	}
	var transform func(context.Context, []host.Message) ([]host.Message, error)
	if sc.KeepLast > 0 || sc.TransformFail > 0 {
		transforms := 0 // the loop calls it from one goroutine
		transform = func(_ context.Context, ms []host.Message) ([]host.Message, error) {
			if transforms++; transforms == sc.TransformFail {
				return nil, errors.New("transform failed")
			}
			if sc.KeepLast > 0 {
				return ms[max(0, len(ms)-sc.KeepLast):], nil
			}
			return ms, nil
		}
	}
	history := piHistory(sc.History)
	if sc.Agent {
		h.agent = host.NewAgent(host.AgentOptions{
			SystemPrompt: "You are a test.", Model: host.Model(model), Tools: tools, Messages: history, ThinkingLevel: sc.ThinkingLevel,
			BeforeToolCall: before, AfterToolCall: after, ConvertToLLM: convert, TransformContext: transform,
			ToolExecution: host.ExecutionMode(sc.ToolExecution), MaxToolCalls: -1,
			SteeringMode: host.QueueMode(sc.SteeringMode), FollowUpMode: host.QueueMode(sc.FollowUpMode),
		})
		if sc.NoModel {
			h.agent.SetModel(nil)
		}
		h.abort = h.agent.Abort
		h.agent.Subscribe(h.sink)
		h.queueAt("", 0)
		h.abortBefore()
		call := func(err error) {
			h.record(err)
			h.recordState(true, nil)
		}
		if sc.PromptText { // prompt(text, images) of the one prompt
			first := piMessage(sc.Prompts[0]).(*host.UserMessage)
			var images []host.ImageContent
			for _, b := range first.Content[1:] {
				images = append(images, b.(host.ImageContent))
			}
			call(h.agent.PromptText(context.Background(), first.Content[0].(host.TextContent).Text, images...))
		} else {
			call(h.agent.Prompt(context.Background(), prompts...))
		}
		if sc.Continue {
			call(h.agent.Continue(context.Background()))
		}
		if sc.Then != nil {
			then := make([]host.Message, len(sc.Then))
			for i, p := range sc.Then {
				then[i] = piMessage(p)
			}
			call(h.agent.Prompt(context.Background(), then...))
		}
	} else {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		h.abort = cancel
		h.queueAt("", 0)
		h.abortBefore()
		turns := 0
		cfg := &host.Config{
			Model: model, Reasoning: sc.ThinkingLevel, BeforeToolCall: before, AfterToolCall: after, ConvertToLLM: convert, TransformContext: transform,
			ToolExecution: host.ExecutionMode(sc.ToolExecution), MaxToolCalls: -1,
			SteeringMessages: func(context.Context) []host.Message { return h.drain(&h.steer, sc.SteeringMode) },
			FollowUpMessages: func(context.Context) []host.Message { return h.drain(&h.follow, sc.FollowUpMode) },
		}
		if sc.StopAfterTurn > 0 {
			cfg.ShouldStopAfterTurn = func(context.Context, host.TurnInfo) bool { turns++; return turns == sc.StopAfterTurn }
		}
		c := &host.Context{SystemPrompt: "You are a test.", Tools: tools, Messages: history}
		if sc.Continue {
			c.Messages = append(c.Messages, prompts...)
			_, err = host.RunLoopContinue(ctx, c, cfg, h.sink)
		} else {
			_, err = host.RunLoop(ctx, prompts, c, cfg, h.sink)
		}
		h.record(err)
	}
	return h.lines()
}

func (h *piHarness) model() (*piModel, error) {
	m := &piModel{replay: scripted.New(&scripted.Script{ChunkTokens: h.sc.ChunkTokens}), turns: make([]scripted.Turn, len(h.sc.Turns)),
		raw: make([]*piTurn, len(h.sc.Turns)), digest: make([]bool, len(h.sc.Turns))}
	for i, t := range h.sc.Turns {
		if t.Raw != nil {
			m.raw[i] = &h.sc.Turns[i]
			continue
		}
		m.digest[i], t.Digest = t.Digest, false
		b, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &m.turns[i]); err != nil {
			return nil, fmt.Errorf("turn %d: %w", i, err)
		}
	}
	return m, nil
}

// sink runs what is due at e before recording it, so that a tool waiting
// for e sees it done (diff.mjs does the same).
func (h *piHarness) sink(ctx context.Context, e host.Event) error {
	d := hosttest.Describe(e)
	h.mu.Lock()
	h.seen[d]++
	n := h.seen[d]
	h.mu.Unlock()
	busy := h.queueAt(d, n)
	if a := h.sc.AbortAt; a != nil && a.On == d && a.Nth == n {
		h.abort()
	}
	if err := h.rec.Sink(ctx, e); err != nil {
		return err
	}
	if _, update := e.(host.ToolExecutionUpdateEvent); update {
		h.recordState(false, nil) // pi delivers an update inside onUpdate, we after it (docs/loop.md 17.2)
	} else {
		h.recordState(false, ctx)
	}
	for _, err := range busy {
		h.record(err)
	}
	if f := h.sc.FailAt; f != nil && f.On == d && f.Nth == n {
		return errors.New("listener failed")
	}
	return nil
}

// queueAt queues the messages due at the nth event named on, and returns
// the errors of the Agent's prompt and continue called there.
func (h *piHarness) queueAt(on string, n int) (busy []error) {
	for _, q := range h.sc.Queue {
		if q.On != on || (on != "" && q.Nth != n) {
			continue
		}
		m := piMessage(q.Text)
		switch {
		case piAction[q.Kind] != nil:
			if h.agent != nil {
				piAction[q.Kind](h, q.Text)
			}
		case q.Kind == "prompt" || q.Kind == "continue":
			if h.agent != nil && q.Kind == "prompt" {
				busy = append(busy, h.agent.Prompt(context.Background(), m))
			} else if h.agent != nil {
				busy = append(busy, h.agent.Continue(context.Background()))
			}
		case h.agent != nil && q.Kind == "steer":
			h.agent.Steer(m)
		case h.agent != nil:
			h.agent.FollowUp(m)
		case q.Kind == "steer":
			h.mu.Lock()
			h.steer = append(h.steer, m)
			h.mu.Unlock()
		default:
			h.mu.Lock()
			h.follow = append(h.follow, m)
			h.mu.Unlock()
		}
	}
	return busy
}

// abortBefore aborts before the run when the scenario says so (an idle
// Agent ignores it).
func (h *piHarness) abortBefore() {
	if a := h.sc.AbortAt; a != nil && a.On == "" {
		h.abort()
	}
}

func (h *piHarness) drain(q *[]host.Message, mode string) []host.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := min(1, len(*q))
	if mode == "all" {
		n = len(*q)
	}
	out := (*q)[:n:n]
	*q = (*q)[n:]
	return out
}

// record keeps an error the API returned; a *host.RunError itself is pi's
// agent_end with a failure message, already in the events (one that only
// wraps it is pi's rejection: a listener failed on that agent_end).
func (h *piHarness) record(err error) {
	if _, ok := err.(*host.RunError); err == nil || ok {
		return
	}
	h.note(map[string]string{"type": "harness_error", "message": err.Error()})
}

// note adds a harness line after the events so far.
func (h *piHarness) note(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of our own values: cannot fail
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(h.rec.Events())
	h.extra[n] = append(h.extra[n], b)
}

// recordState notes the Agent's state when the scenario asks for it, with
// the whole transcript after a call of the API (diff.mjs's recordState);
// ctx is the listener's, after an event (nil after a call of the API).
func (h *piHarness) recordState(full bool, ctx context.Context) {
	if h.sc.State && h.agent != nil {
		line := piStateLine(h.agent, full)
		if ctx != nil {
			line["aborted"] = ctx.Err() != nil
		}
		h.note(line)
	}
}

func (h *piHarness) lines() ([][]byte, error) {
	var out [][]byte
	flush := func(i int) { out = append(out, h.extra[i]...) }
	for i, e := range h.rec.Events() {
		flush(i)
		b, err := host.MarshalEvent(e)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	flush(len(h.rec.Events()))
	return out, nil
}

func (h *piHarness) tools() []host.Tool {
	var out []host.Tool
	for _, spec := range h.sc.Tools {
		t := hosttest.Tool(spec.Name, string(spec.Parameters), h.execute)
		if spec.Sequential {
			t.ExecutionMode = host.ExecutionSequential
		}
		if spec.Prepare {
			t.Prepare = h.prepare
		}
		out = append(out, t)
	}
	return out
}

// prepare is diff.mjs's prepareArguments: an object with an "abort" key
// aborts the run; one with an "x" key fails; one with a "file" key
// becomes {"path": file}.
func (h *piHarness) prepare(args json.RawMessage) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return args, nil
	}
	if _, ok := obj["abort"]; ok {
		h.abort()
	}
	if _, ok := obj["x"]; ok {
		return nil, errors.New("cannot prepare x")
	}
	file, ok := obj["file"]
	if !ok {
		return args, nil
	}
	return json.RawMessage(`{"path":` + string(file) + `}`), nil
}

func (h *piHarness) call(id string) *piCall {
	if c := h.sc.Calls[id]; c != nil {
		return c
	}
	return &piCall{}
}

func (h *piHarness) execute(ctx context.Context, id string, args json.RawMessage, onUpdate host.UpdateFunc) (host.ToolResult, error) {
	b := h.call(id)
	for _, w := range b.Wait {
		if !h.rec.WaitFor(piWaitTimeout, hosttest.Ended(w)) {
			return host.ToolResult{}, errors.New("timed out waiting for " + w)
		}
	}
	for _, u := range b.Updates {
		onUpdate(u)
	}
	if b.Abort {
		h.abort()
		<-ctx.Done()
		return host.ToolResult{}, ctx.Err()
	}
	if b.Throw != nil {
		return host.ToolResult{}, errors.New(*b.Throw)
	}
	text := string(args)
	if b.Text != nil {
		text = *b.Text
	}
	r := host.ToolResult{Content: host.Text(text), Terminate: b.Terminate}
	if b.Empty {
		r.Content = host.Contents{}
	}
	if b.Image {
		r.Content = append(r.Content, host.ImageContent{Data: "aGk=", MimeType: "image/png"})
	}
	if b.Details != nil {
		r.Details = b.Details
	}
	r.Extra = b.Extra
	return r, nil
}

func (h *piHarness) before(ctx context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
	b := h.call(c.ToolCall.ID).Before
	if b == nil {
		return nil, nil
	}
	if b.Abort {
		h.abort()
	}
	if b.Throw != nil {
		return nil, errors.New(*b.Throw)
	}
	r := &host.BeforeToolCallResult{Block: b.Block}
	if b.Reason != nil {
		r.Reason = *b.Reason
	}
	if b.Echo {
		r.Reason = "args " + string(c.Args) + " " + piSeenBy(ctx, c)
	}
	return r, nil
}

func (h *piHarness) after(ctx context.Context, c *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
	a := h.call(c.ToolCall.ID).After
	if a == nil {
		return nil, nil
	}
	if a.Abort {
		h.abort()
	}
	if a.Throw != nil {
		return nil, errors.New(*a.Throw)
	}
	r := &host.AfterToolCallResult{IsError: a.IsError, Terminate: a.Terminate}
	if a.Echo {
		details, _ := json.Marshal(c.Result.Details)
		r.Content = host.Text(fmt.Sprintf("saw %s %t %s %s %s result=%s", c.Args, c.IsError, piTexts(c.Result.Content), details,
			piSeenBy(ctx, &c.ToolCallContext), piStringify(c.Result)))
	}
	if a.Content != nil {
		r.Content = host.Contents{}
		for _, text := range *a.Content {
			r.Content = append(r.Content, host.TextContent{Text: text})
		}
	}
	if a.Details != nil {
		r.Details = a.Details
	}
	return r, nil
}
