package host

import (
	"context"
	"time"
)

// Context is what a run works on: the system prompt, the transcript so far
// and the tools.
type Context struct {
	SystemPrompt string
	Messages     []Message
	Tools        []Tool
}

// TurnInfo is what ShouldStopAfterTurn is told about a finished turn.
type TurnInfo struct {
	Message     *AssistantMessage
	ToolResults []*ToolResultMessage
	Context     *Context
	NewMessages []Message
}

// Config configures a run of the loop (pi's AgentLoopConfig).
//
// The callbacks must not panic; a panic, like an error they return, ends
// the run with a synthetic error message (see [RunLoop]).
type Config struct {
	// Model answers each turn. Required.
	Model Model
	// Reasoning is passed on in every Request.
	Reasoning string

	// TransformContext, if set, rewrites the transcript before each model
	// request (pruning, injecting context).
	TransformContext func(ctx context.Context, messages []Message) ([]Message, error)
	// ConvertToLLM turns the transcript into the messages the model sees.
	// Nil means DefaultConvertToLLM.
	ConvertToLLM func(ctx context.Context, messages []Message) ([]Message, error)
	// ShouldStopAfterTurn, if it returns true after a turn_end, ends the run
	// without polling steering or follow-up messages.
	ShouldStopAfterTurn func(ctx context.Context, turn TurnInfo) bool
	// SteeringMessages is polled before the first model request and after
	// every turn; what it returns starts the next turn.
	SteeringMessages func(ctx context.Context) []Message
	// FollowUpMessages is polled when the run would otherwise end.
	FollowUpMessages func(ctx context.Context) []Message

	// ToolExecution is parallel (the default) or sequential.
	ToolExecution ExecutionMode
	// MaxConcurrency caps how many calls of a parallel batch execute at
	// once; 0 means no cap (pi's behaviour).
	MaxConcurrency int
	// MaxToolCalls is the most tool calls of one assistant message that
	// run: later calls of the message are each answered with an error
	// result that says so, and the run goes on (0 means
	// DefaultMaxToolCalls, 128; negative means no cap, pi's behaviour).
	MaxToolCalls int
	// MaxArgumentBytes caps one call's arguments, both as the model sent
	// them and as validated: a call over it is answered with an error
	// result that names the cap (0 means DefaultMaxArgumentBytes, 16 MiB;
	// negative means no cap).
	MaxArgumentBytes int
	// BeforeToolCall hooks run in order, gates (HookOptions.Gate) after
	// the others; the first to block wins (docs/hooks.md).
	BeforeToolCall []BeforeToolCallHook
	// AfterToolCall hooks run in order, each seeing the previous one's
	// result.
	AfterToolCall []AfterToolCallHook
	// Approver answers the before hooks' questions (BeforeToolCallResult
	// Ask); nil leaves them to each hook's OnAsk, which blocks by
	// default. ApprovalTimeout bounds each answer (zero:
	// DefaultApprovalTimeout); an unanswered question declines the call.
	Approver        Approver
	ApprovalTimeout time.Duration
	// OnHook, if set, is told every hook's decision (for audit logs). It
	// is called from the goroutines running the calls and must not block.
	OnHook func(HookReport)
	// Observer, if set, is told when each stage of the run begins and
	// ends (host/telemetry traces with it).
	Observer Observer

	// Now returns the time stamped on tool results and synthetic messages.
	// Nil means time.Now.
	Now func() time.Time
}

func (c *Config) now() int64 {
	if c.Now != nil {
		return c.Now().UnixMilli()
	}
	return time.Now().UnixMilli()
}

// Sink receives the events of a run, one at a time and in order. An error
// ends the run (see [RunLoop]).
type Sink func(ctx context.Context, e Event) error
