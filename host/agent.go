package host

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Listener receives an Agent's events. ctx is the run's context (pi's
// signal). Listeners are called one at a time, in subscription order, after
// the Agent has applied the event to its state; the loop waits for them. An
// error (or panic) ends the run as a failure (see [RunLoop]).
type Listener func(ctx context.Context, e Event) error

// AgentOptions configures an Agent. The zero value is usable once a Model
// is set.
type AgentOptions struct {
	SystemPrompt  string
	Model         Model
	ThinkingLevel string // "off" (the default) or a level passed as Request.Reasoning
	Tools         []Tool
	Messages      []Message

	ConvertToLLM        func(ctx context.Context, messages []Message) ([]Message, error)
	TransformContext    func(ctx context.Context, messages []Message) ([]Message, error)
	ShouldStopAfterTurn func(ctx context.Context, turn TurnInfo) bool
	BeforeToolCall      []BeforeToolCallHook
	AfterToolCall       []AfterToolCallHook
	Approver            Approver      // answers hooks' questions (Config.Approver)
	ApprovalTimeout     time.Duration // zero: DefaultApprovalTimeout
	OnHook              func(HookReport)
	Observer            Observer // Config.Observer
	ToolExecution       ExecutionMode
	MaxConcurrency      int
	MaxToolCalls        int // Config.MaxToolCalls
	MaxArgumentBytes    int // Config.MaxArgumentBytes
	SteeringMode        QueueMode
	FollowUpMode        QueueMode
	Now                 func() time.Time
}

// AgentState is a snapshot of an Agent's state.
type AgentState struct {
	SystemPrompt     string
	Model            Model
	ThinkingLevel    string
	Tools            []Tool
	Messages         []Message
	IsStreaming      bool
	StreamingMessage Message
	PendingToolCalls []string // ids, in start order
	ErrorMessage     string
}

// Agent is pi's stateful wrapper around the loop: it owns the transcript,
// queues steering and follow-up messages, and delivers events to its
// listeners. Its methods are safe for concurrent use.
type Agent struct {
	mu        sync.Mutex
	opts      AgentOptions // configuration; Tools/Messages live in state
	state     AgentState
	listeners []listenerEntry
	nextID    int
	steering  messageQueue
	followUp  messageQueue
	active    *activeRun
}

type listenerEntry struct {
	id int
	fn Listener
}

type activeRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// NewAgent returns an idle Agent.
func NewAgent(opts AgentOptions) *Agent {
	a := &Agent{opts: opts}
	a.state = AgentState{
		SystemPrompt:  opts.SystemPrompt,
		Model:         opts.Model,
		ThinkingLevel: opts.ThinkingLevel,
		Tools:         slices.Clone(opts.Tools),
		Messages:      slices.Clone(opts.Messages),
	}
	if a.state.ThinkingLevel == "" {
		a.state.ThinkingLevel = "off"
	}
	a.steering.mode = orDefault(opts.SteeringMode)
	a.followUp.mode = orDefault(opts.FollowUpMode)
	return a
}

func orDefault(m QueueMode) QueueMode {
	if m == "" {
		return OneAtATime
	}
	return m
}

// State returns a snapshot of the state; its slices are copies.
func (a *Agent) State() AgentState {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.state
	s.Tools = slices.Clone(s.Tools)
	s.Messages = slices.Clone(s.Messages)
	s.PendingToolCalls = slices.Clone(s.PendingToolCalls)
	return s
}

// Subscribe adds a listener and returns the function that removes it.
func (a *Agent) Subscribe(fn Listener) (unsubscribe func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextID++
	id := a.nextID
	a.listeners = append(a.listeners, listenerEntry{id: id, fn: fn})
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.listeners = slices.DeleteFunc(a.listeners, func(l listenerEntry) bool { return l.id == id })
	}
}

// Prompt runs the loop with new messages and returns when the run has ended
// and every agent_end listener has returned. It fails at once with
// ErrPromptBusy while a run is active. A run whose failure escaped the loop
// returns its *RunError after the state has recorded it; if a listener
// fails on that failure's agent_end too, the error's text is the
// listener's, as pi's prompt rejects with it (errors.As still finds the
// *RunError).
func (a *Agent) Prompt(ctx context.Context, messages ...Message) error {
	a.mu.Lock()
	if a.active != nil {
		a.mu.Unlock()
		return ErrPromptBusy
	}
	ar, runCtx := a.beginLocked(ctx)
	a.mu.Unlock()
	return a.execute(runCtx, ar, messages, false, false)
}

// PromptText prompts with one user message made of text and images.
func (a *Agent) PromptText(ctx context.Context, text string, images ...ImageContent) error {
	content := Contents{TextContent{Text: text}}
	for _, img := range images {
		content = append(content, img)
	}
	return a.Prompt(ctx, &UserMessage{Content: content, Timestamp: a.now()})
}

// Continue resumes from the current transcript (pi's continue()). When the
// last message is the assistant's, it runs a queued steering message (or
// else a follow-up) as the prompt; with neither it fails.
func (a *Agent) Continue(ctx context.Context) error {
	a.mu.Lock()
	if a.active != nil {
		a.mu.Unlock()
		return ErrContinueBusy
	}
	msgs := a.state.Messages
	if len(msgs) == 0 {
		a.mu.Unlock()
		return ErrNoMessages
	}
	if msgs[len(msgs)-1].MessageRole() != RoleAssistant {
		ar, runCtx := a.beginLocked(ctx)
		a.mu.Unlock()
		return a.execute(runCtx, ar, nil, true, false)
	}
	if steer := a.steering.drain(); len(steer) > 0 {
		ar, runCtx := a.beginLocked(ctx)
		a.mu.Unlock()
		return a.execute(runCtx, ar, steer, false, true)
	}
	if follow := a.followUp.drain(); len(follow) > 0 {
		ar, runCtx := a.beginLocked(ctx)
		a.mu.Unlock()
		return a.execute(runCtx, ar, follow, false, false)
	}
	a.mu.Unlock()
	return ErrContinueFromAssistant
}

// beginLocked marks a run active and resets the run-owned state.
func (a *Agent) beginLocked(ctx context.Context) (*activeRun, context.Context) {
	runCtx, cancel := context.WithCancel(ctx)
	ar := &activeRun{cancel: cancel, done: make(chan struct{})}
	a.active = ar
	a.state.IsStreaming = true
	a.state.StreamingMessage = nil
	a.state.ErrorMessage = ""
	return ar, runCtx
}

// execute runs the loop for an active run and ends it.
func (a *Agent) execute(ctx context.Context, ar *activeRun, prompts []Message, continuation, skipInitialSteering bool) error {
	defer a.finish(ar)
	c, cfg := a.snapshot(skipInitialSteering)
	r := newRun(ctx, c, cfg, a.process)
	r.onFailure = a.recordFailure
	r.failureModel = func() Model { // pi's handleRunFailure reads the state's model
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.state.Model
	}
	var err error
	if continuation {
		_, err = r.resume()
	} else {
		_, err = r.prompt(prompts)
	}
	if re, ok := err.(*RunError); ok && re.endErr != nil {
		return &endListenerError{re} // pi's prompt rejects with the listener's error
	}
	return err
}

// endListenerError is a failed run whose agent_end a listener failed on
// too: its text is the listener's error, as pi's rejection; it unwraps to
// both that error and the *RunError.
type endListenerError struct{ run *RunError }

func (e *endListenerError) Error() string   { return e.run.endErr.Error() }
func (e *endListenerError) Unwrap() []error { return []error{e.run.endErr, e.run} }

// snapshot is pi's createContextSnapshot and createLoopConfig.
func (a *Agent) snapshot(skipInitialSteering bool) (*Context, *Config) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := &Context{
		SystemPrompt: a.state.SystemPrompt,
		Messages:     slices.Clone(a.state.Messages),
		Tools:        slices.Clone(a.state.Tools),
	}
	reasoning := a.state.ThinkingLevel
	if reasoning == "off" {
		reasoning = ""
	}
	o := a.opts
	cfg := &Config{
		Model:               a.state.Model,
		Reasoning:           reasoning,
		TransformContext:    o.TransformContext,
		ConvertToLLM:        o.ConvertToLLM,
		ShouldStopAfterTurn: o.ShouldStopAfterTurn,
		ToolExecution:       o.ToolExecution,
		MaxConcurrency:      o.MaxConcurrency,
		MaxToolCalls:        o.MaxToolCalls,
		MaxArgumentBytes:    o.MaxArgumentBytes,
		BeforeToolCall:      slices.Clone(o.BeforeToolCall),
		AfterToolCall:       slices.Clone(o.AfterToolCall),
		Approver:            o.Approver,
		ApprovalTimeout:     o.ApprovalTimeout,
		OnHook:              o.OnHook,
		Observer:            o.Observer,
		Now:                 o.Now,
		SteeringMessages: func(context.Context) []Message {
			a.mu.Lock()
			defer a.mu.Unlock()
			if skipInitialSteering {
				skipInitialSteering = false
				return nil
			}
			return a.steering.drain()
		},
		FollowUpMessages: func(context.Context) []Message {
			a.mu.Lock()
			defer a.mu.Unlock()
			return a.followUp.drain()
		},
	}
	return c, cfg
}

// process is the run's sink: pi's processEvents. The listeners are
// visited as pi iterates its Set of them: in subscription order, each one
// subscribed when its turn comes, so that a listener subscribed by an
// earlier one during this event is given the event too, and one
// unsubscribed before its turn is not.
func (a *Agent) process(ctx context.Context, e Event) error {
	a.mu.Lock()
	a.reduce(e)
	a.mu.Unlock()
	for last := 0; ; {
		l, ok := a.nextListener(last)
		if !ok {
			return nil
		}
		if err := l.fn(ctx, e); err != nil {
			return err
		}
		last = l.id
	}
}

// nextListener returns the first listener subscribed after the one whose
// id is last (ids grow with each subscription).
func (a *Agent) nextListener(last int) (listenerEntry, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, l := range a.listeners {
		if l.id > last {
			return l, true
		}
	}
	return listenerEntry{}, false
}

func (a *Agent) reduce(e Event) {
	s := &a.state
	switch e := e.(type) {
	case MessageStartEvent:
		s.StreamingMessage = e.Message
	case MessageUpdateEvent:
		s.StreamingMessage = e.Message
	case MessageEndEvent:
		s.StreamingMessage = nil
		s.Messages = append(s.Messages, e.Message)
	case ToolExecutionStartEvent: // a set, as pi's: an id already pending stays where it is
		if !slices.Contains(s.PendingToolCalls, e.ToolCallID) {
			s.PendingToolCalls = append(slices.Clone(s.PendingToolCalls), e.ToolCallID)
		}
	case ToolExecutionEndEvent:
		s.PendingToolCalls = slices.DeleteFunc(slices.Clone(s.PendingToolCalls), func(id string) bool { return id == e.ToolCallID })
	case TurnEndEvent:
		if e.Message != nil && e.Message.ErrorMessage != "" {
			s.ErrorMessage = e.Message.ErrorMessage
		}
	case AgentEndEvent:
		s.StreamingMessage = nil
	}
}

// recordFailure is pi's handleRunFailure state update.
func (a *Agent) recordFailure(msg *AssistantMessage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.state.Messages = append(a.state.Messages, msg)
	a.state.ErrorMessage = msg.ErrorMessage
}

// finish is pi's finishRun.
func (a *Agent) finish(ar *activeRun) {
	a.mu.Lock()
	a.state.IsStreaming = false
	a.state.StreamingMessage = nil
	a.state.PendingToolCalls = nil
	if a.active == ar {
		a.active = nil
	}
	a.mu.Unlock()
	ar.cancel()
	close(ar.done)
}

// Abort cancels the active run's context; it does nothing when idle.
func (a *Agent) Abort() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.active != nil {
		a.active.cancel()
	}
}

// WaitForIdle waits until no run is active, or ctx is done.
func (a *Agent) WaitForIdle(ctx context.Context) error {
	a.mu.Lock()
	ar := a.active
	a.mu.Unlock()
	if ar == nil {
		return nil
	}
	select {
	case <-ar.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Reset clears the transcript, the run-owned state and both queues. It
// neither aborts nor detaches an active run.
func (a *Agent) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.state.Messages = nil
	a.state.IsStreaming = false
	a.state.StreamingMessage = nil
	a.state.PendingToolCalls = nil
	a.state.ErrorMessage = ""
	a.steering.items = nil
	a.followUp.items = nil
}

func (a *Agent) now() int64 {
	if a.opts.Now != nil {
		return a.opts.Now().UnixMilli()
	}
	return time.Now().UnixMilli()
}
