package host

import (
	"context"
	"encoding/json"
)

// Observer watches the stages of runs and tool calls, for tracing and
// metrics (host/telemetry implements it with OpenTelemetry). Nil, the
// default, costs a nil check per stage.
//
//  1. Begin is called when a stage begins, on the goroutine that runs it,
//     with the context the stage was given.
//  2. The stage runs under the context Begin returns and hands it on to
//     what it calls (the model, the hooks, the tool), so stages nest: a
//     run holds its turns; a turn its model request and its tool calls
//     (a parallel batch's calls are siblings); a tool call its hooks and
//     whatever its tool does with ctx (a Wasm plugin's instance).
//  3. The returned function is called exactly once, when the stage ends,
//     perhaps on another goroutine.
//
// An Observer must be safe for concurrent use, must not block, and must
// return ctx or a context derived from it. It must not keep Stage.Args or
// StageEnd's message and result after end returns.
type Observer interface {
	Begin(ctx context.Context, s Stage) (context.Context, func(StageEnd))
}

// StageKind names a stage of a run.
type StageKind string

const (
	StageRun   StageKind = "run"   // RunLoop, RunLoopContinue, an Agent's prompt
	StageTurn  StageKind = "turn"  // one model request and its tool calls
	StageModel StageKind = "model" // one model request, to its final message
	StageTool  StageKind = "tool"  // one tool call, all five stages
	StageHook  StageKind = "hook"  // one before or after hook on one call
)

// Stage is what is known when a stage begins.
type Stage struct {
	Kind StageKind
	// Model is the model asked (StageModel).
	Model ModelInfo
	// ToolCallID and Tool name the call (StageTool, StageHook); Args are
	// its arguments as the model sent them (StageTool).
	ToolCallID, Tool string
	Args             json.RawMessage
	// HookKind is "beforeToolCall" or "afterToolCall", Hook its name
	// (HookOptions.Name) and Gate whether it is a gate (StageHook).
	HookKind, Hook string
	Gate           bool
}

// StageEnd is what is known when a stage ends.
type StageEnd struct {
	// Outcome is "ok" or "error" for every stage; a tool call may also be
	// "blocked" (a before hook said no) or "invalid" (not found, or its
	// arguments were refused); a model request ends with its stop reason.
	Outcome string
	// Message is the model's final message (StageModel).
	Message *AssistantMessage
	// Result is the call's final result (StageTool; nil for a call
	// abandoned unrun when the sink failed), Report the hook's decision
	// (StageHook).
	Result *ToolResult
	Report *HookReport
}

// noEnd ends a stage nobody observes.
func noEnd(StageEnd) {}

// observe begins s with o, if any.
func observe(o Observer, ctx context.Context, s Stage) (context.Context, func(StageEnd)) {
	if o == nil {
		return ctx, noEnd
	}
	return o.Begin(ctx, s)
}

// enter begins a stage of the run itself (a turn): r.ctx is the stage's
// context until the returned function restores it and ends the stage.
func (r *run) enter(s Stage) func(StageEnd) {
	if r.cfg.Observer == nil {
		return noEnd
	}
	outer := r.ctx
	ctx, end := r.cfg.Observer.Begin(outer, s)
	r.ctx = ctx
	return func(e StageEnd) {
		r.ctx = outer
		end(e)
	}
}

// abandon ends the stages of prepared calls that will not execute: the
// sink failed before their batch ran.
func abandon(preps []*PreparedCall) {
	for _, p := range preps {
		if p != nil && p.end != nil {
			p.end(StageEnd{Outcome: "error"})
		}
	}
}

// outcome is a stage's outcome given its error.
func outcome(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}

// modelStage is the Stage of a model request.
func (r *run) modelStage() Stage {
	s := Stage{Kind: StageModel}
	if r.cfg.Observer == nil {
		return s
	}
	if d, ok := r.cfg.Model.(ModelDescriber); ok {
		s.Model = d.ModelInfo()
	}
	return s
}

// modelEnd is a model request's end: its stop reason and final message.
func modelEnd(streamed, returned *AssistantMessage, err error) StageEnd {
	msg := streamed
	if msg == nil {
		msg = returned
	}
	if err != nil || msg == nil {
		return StageEnd{Outcome: "error"}
	}
	return StageEnd{Outcome: string(msg.StopReason), Message: msg}
}
