package host

import (
	"context"
	"fmt"
)

// RunLoop runs the agent loop on c with new prompt messages (pi's
// runAgentLoop). Events go to sink, one at a time and in order; it returns
// the messages the run added (the prompts, injected messages, assistant
// messages and tool results), which is also agent_end's list.
//
// The loop never checks ctx itself: it hands it to the model, the tools,
// the hooks and the callbacks, and relies on the model to answer a
// cancelled ctx with an "aborted" message, which ends the run.
//
// A failure that escapes the loop (the sink, TransformContext, ConvertToLLM
// or a polling callback returns an error or panics; the model panics) does
// not leave the run hanging: the loop delivers agent_end with one synthetic
// assistant message (stopReason "error", or "aborted" if ctx is done) and
// returns a *RunError holding that message.
//
// RunLoop does not modify c: it works on a copy of c.Messages.
func RunLoop(ctx context.Context, prompts []Message, c *Context, cfg *Config, sink Sink) ([]Message, error) {
	return newRun(ctx, c, cfg, sink).prompt(prompts)
}

// prompt starts the run with new messages (shared by RunLoop and Agent).
func (r *run) prompt(prompts []Message) ([]Message, error) {
	r.c.Messages = append(append(r.c.Messages, r.src.Messages...), prompts...)
	r.newMessages = append(r.newMessages, prompts...)
	return r.finish(func() error {
		if err := r.emitAll(AgentStartEvent{}, TurnStartEvent{}); err != nil {
			return err
		}
		for _, p := range prompts {
			if err := r.emitAll(MessageStartEvent{Message: p}, MessageEndEvent{Message: p}); err != nil {
				return err
			}
		}
		return r.loop()
	})
}

// RunLoopContinue runs the loop on c without new messages (pi's
// runAgentLoopContinue), for retries: the last message must not be an
// assistant message. Everything else is as for [RunLoop].
func RunLoopContinue(ctx context.Context, c *Context, cfg *Config, sink Sink) ([]Message, error) {
	if len(c.Messages) == 0 {
		return nil, ErrContinueEmpty
	}
	if c.Messages[len(c.Messages)-1].MessageRole() == RoleAssistant {
		return nil, ErrContinueFromAssistant
	}
	return newRun(ctx, c, cfg, sink).resume()
}

// resume starts the run from the transcript alone (shared by
// RunLoopContinue and Agent.Continue); the caller checked its last role.
func (r *run) resume() ([]Message, error) {
	r.c.Messages = append(r.c.Messages, r.src.Messages...)
	return r.finish(func() error {
		if err := r.emitAll(AgentStartEvent{}, TurnStartEvent{}); err != nil {
			return err
		}
		return r.loop()
	})
}

// run is the state of one run of the loop.
type run struct {
	ctx         context.Context
	cfg         *Config
	src         *Context // the caller's, never modified
	c           *Context // the run's own
	em          *emitter
	tools       *ToolRunner
	newMessages []Message
	limits      callLimits // caps on the calls of one message (limits.go)

	// onFailure, if set, is told the synthetic message of a failed run
	// before its agent_end is delivered (the Agent records it there).
	onFailure func(*AssistantMessage)
	// failureModel, if set, is the model the synthetic message names
	// (the Agent's at the time of the failure); else cfg.Model.
	failureModel func() Model
	// endRun ends the run's stage for the Observer.
	endRun func(StageEnd)
}

func newRun(ctx context.Context, c *Context, cfg *Config, sink Sink) *run {
	cc := &Context{SystemPrompt: c.SystemPrompt, Tools: c.Tools}
	ctx, endRun := observe(cfg.Observer, ctx, Stage{Kind: StageRun})
	r := &run{ctx: ctx, cfg: cfg, src: c, c: cc, em: &emitter{ctx: ctx, sink: sink}, newMessages: []Message{}, endRun: endRun}
	r.tools = r.runner()
	return r
}

func (r *run) emitAll(events ...Event) error {
	for _, e := range events {
		if err := r.em.emit(e); err != nil {
			return err
		}
	}
	return nil
}

// finish runs body and, when a failure escapes it, ends the run with the
// synthetic error message and its own agent_end (docs/loop.md 15.2).
func (r *run) finish(body func() error) (_ []Message, err error) {
	defer func() { r.endRun(StageEnd{Outcome: outcome(err)}) }()
	err = body()
	if err == nil {
		return r.newMessages, nil
	}
	msg := r.failureMessage(err)
	if r.onFailure != nil {
		r.onFailure(msg)
	}
	end := AgentEndEvent{Messages: []Message{msg}}
	_, sinkErr := safely("event sink", func() (struct{}, error) {
		return struct{}{}, r.em.sink(r.ctx, end)
	})
	if sinkErr != nil {
		err = fmt.Errorf("%w; delivering agent_end: %v", err, sinkErr)
	}
	return end.Messages, &RunError{Err: err, Message: msg, endErr: sinkErr}
}

func (r *run) failureMessage(err error) *AssistantMessage {
	info := ModelInfo{API: "unknown", Provider: "unknown", ID: "unknown"}
	model := r.cfg.Model
	if r.failureModel != nil {
		model = r.failureModel()
	}
	if d, ok := model.(ModelDescriber); ok {
		info = d.ModelInfo()
	}
	reason := StopReasonError
	if r.ctx.Err() != nil {
		reason = StopReasonAborted
	}
	return &AssistantMessage{
		Content:      Contents{TextContent{Text: ""}},
		API:          info.API,
		Provider:     info.Provider,
		Model:        info.ID,
		StopReason:   reason,
		ErrorMessage: err.Error(),
		Timestamp:    r.cfg.now(),
		order:        OrderMade, // pi-agent-core's handleRunFailure
	}
}

// loop is pi's runLoop: the inner loop runs turns while there are tool
// calls or steering messages; the outer loop continues with follow-ups.
func (r *run) loop() error {
	first := true
	pending, err := r.poll("SteeringMessages", r.cfg.SteeringMessages)
	if err != nil {
		return err
	}
	for {
		more := true
		for more || len(pending) > 0 {
			if !first {
				if err := r.em.emit(TurnStartEvent{}); err != nil {
					return err
				}
			}
			first = false
			if err := r.inject(pending); err != nil {
				return err
			}
			pending = nil
			stop, hasMore, err := r.turn()
			if err != nil || stop {
				return err
			}
			more = hasMore
			if pending, err = r.poll("SteeringMessages", r.cfg.SteeringMessages); err != nil {
				return err
			}
		}
		followUps, err := r.poll("FollowUpMessages", r.cfg.FollowUpMessages)
		if err != nil {
			return err
		}
		if len(followUps) == 0 {
			return r.em.emit(AgentEndEvent{Messages: r.newMessages})
		}
		pending = followUps
	}
}

// turn streams one response and runs its tool calls. stop reports that the
// run has ended (agent_end was emitted); more that the batch asked for
// another turn.
func (r *run) turn() (stop, more bool, err error) {
	end := r.enter(Stage{Kind: StageTurn})
	defer func() { end(StageEnd{Outcome: outcome(err)}) }()
	msg, err := r.streamResponse()
	if err != nil {
		return true, false, err
	}
	r.newMessages = append(r.newMessages, msg)
	if msg.StopReason == StopReasonError || msg.StopReason == StopReasonAborted {
		return true, false, r.emitAll(TurnEndEvent{Message: msg}, AgentEndEvent{Messages: r.newMessages})
	}
	results := []*ToolResultMessage{}
	if calls := msg.Content.ToolCalls(); len(calls) > 0 {
		var terminate bool
		results, terminate, err = r.executeToolCalls(msg, calls)
		if err != nil {
			return true, false, err
		}
		more = !terminate
		for _, res := range results {
			r.c.Messages = append(r.c.Messages, res)
			r.newMessages = append(r.newMessages, res)
		}
	}
	if err := r.em.emit(TurnEndEvent{Message: msg, ToolResults: results}); err != nil {
		return true, false, err
	}
	if r.cfg.ShouldStopAfterTurn != nil {
		turn := TurnInfo{Message: msg, ToolResults: results, Context: r.c, NewMessages: r.newMessages}
		halt, err := safely("ShouldStopAfterTurn", func() (bool, error) {
			return r.cfg.ShouldStopAfterTurn(r.ctx, turn), nil
		})
		if err != nil {
			return true, false, err
		}
		if halt {
			return true, false, r.em.emit(AgentEndEvent{Messages: r.newMessages})
		}
	}
	return false, more, nil
}

// inject emits and records steering or follow-up messages.
func (r *run) inject(messages []Message) error {
	for _, m := range messages {
		if err := r.emitAll(MessageStartEvent{Message: m}, MessageEndEvent{Message: m}); err != nil {
			return err
		}
		r.c.Messages = append(r.c.Messages, m)
		r.newMessages = append(r.newMessages, m)
	}
	return nil
}

func (r *run) poll(what string, f func(context.Context) []Message) ([]Message, error) {
	if f == nil {
		return nil, nil
	}
	return safely(what, func() ([]Message, error) { return f(r.ctx), nil })
}
