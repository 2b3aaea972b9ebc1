package host

import (
	"context"
	"encoding/json"
)

// ToolCallContext is what a hook is told about a call.
type ToolCallContext struct {
	// AssistantMessage is the message that asked for the call.
	AssistantMessage *AssistantMessage
	// ToolCall is the call as the model sent it (raw arguments).
	ToolCall ToolCall
	// Args are the prepared, coerced and validated arguments, as rewritten
	// by earlier before hooks (and validated again): for after hooks,
	// what the tool ran with.
	Args json.RawMessage
	// Context is the run's context. Its messages end with the assistant
	// message; sibling results of the same batch are never in it. Hooks
	// must not modify it.
	Context *Context
}

// BeforeToolCallResult is a before hook's answer. The zero value (or a nil
// result) allows the call. Block blocks it; Reason is what the model is
// told (default "Tool execution was blocked"). Block and Reason are pi's;
// Args and Ask extend pi's contract and change nothing when unused
// (docs/hooks.md):
//
//   - Args, when not nil, rewrites the call's arguments: the next hook, the
//     tool, the after hooks and the audit see them; the arguments are
//     validated against the tool's schema again after the last rewriting
//     hook. A gate (HookOptions.Gate) may not rewrite.
//   - Ask, when not empty, is a question for the [Approver]: the call goes
//     on only if it is approved (then Args, if set, apply). Block wins over
//     Ask, and Ask over Args.
type BeforeToolCallResult struct {
	Block  bool            `json:"block,omitempty"`
	Reason string          `json:"reason,omitempty"`
	Args   json.RawMessage `json:"arguments,omitempty"`
	Ask    string          `json:"ask,omitempty"`
}

// AfterToolCallContext adds the call's result to ToolCallContext.
type AfterToolCallContext struct {
	ToolCallContext
	Result  ToolResult
	IsError bool
}

// AfterToolCallResult overrides a result field by field: a nil field keeps
// the current value (pi's `??`).
type AfterToolCallResult struct {
	Content   Contents `json:"content,omitempty"`
	Details   any      `json:"details,omitempty"`
	IsError   *bool    `json:"isError,omitempty"`
	Terminate *bool    `json:"terminate,omitempty"`
}

// BeforeToolCallHook runs after validation and before execution. A nil
// result or a nil error with Block false allows the call. An error (or a
// panic) turns the call into an error result carrying its text.
type BeforeToolCallHook interface {
	BeforeToolCall(ctx context.Context, c *ToolCallContext) (*BeforeToolCallResult, error)
}

// AfterToolCallHook runs after execution and may override the result. A nil
// result keeps it untouched. An error (or a panic) turns the call into an
// error result carrying its text.
type AfterToolCallHook interface {
	AfterToolCall(ctx context.Context, c *AfterToolCallContext) (*AfterToolCallResult, error)
}

// BeforeToolCallFunc adapts a function to [BeforeToolCallHook].
type BeforeToolCallFunc func(ctx context.Context, c *ToolCallContext) (*BeforeToolCallResult, error)

// BeforeToolCall implements BeforeToolCallHook.
func (f BeforeToolCallFunc) BeforeToolCall(ctx context.Context, c *ToolCallContext) (*BeforeToolCallResult, error) {
	return f(ctx, c)
}

// AfterToolCallFunc adapts a function to [AfterToolCallHook].
type AfterToolCallFunc func(ctx context.Context, c *AfterToolCallContext) (*AfterToolCallResult, error)

// AfterToolCall implements AfterToolCallHook.
func (f AfterToolCallFunc) AfterToolCall(ctx context.Context, c *AfterToolCallContext) (*AfterToolCallResult, error) {
	return f(ctx, c)
}

var (
	_ BeforeToolCallHook = BeforeToolCallFunc(nil)
	_ AfterToolCallHook  = AfterToolCallFunc(nil)
)

// Bool returns a pointer to b, for AfterToolCallResult fields.
func Bool(b bool) *bool { return &b }

// Fallback is what a hook's failure or unanswered question decides.
type Fallback string

// The fallbacks. The zero value is FallbackBlock: a crashed policy never
// lets a call through silently.
const (
	// FallbackBlock turns the call into an error result (pi's behaviour
	// for a failing hook).
	FallbackBlock Fallback = "block"
	// FallbackAllow goes on as if the hook had answered nothing (for hooks
	// that only observe, such as loggers).
	FallbackAllow Fallback = "allow"
)

// Valid reports whether f is empty, "block" or "allow".
func (f Fallback) Valid() bool { return f == "" || f == FallbackBlock || f == FallbackAllow }

func (f Fallback) allows() bool { return f == FallbackAllow }

// HookOptions say how the loop treats one hook. A hook without options
// (or with the zero value) behaves as in pi.
type HookOptions struct {
	// Name names the hook in panic texts, questions and reports.
	Name string
	// Tools, if set, limits the hook to the tools it reports true for; the
	// hook is not called for the others.
	Tools func(toolName string) bool
	// Gate (before hooks only) runs the hook after every hook that is not
	// a gate, on the final arguments; a gate may block or ask but not
	// rewrite (a rewrite from a gate blocks the call).
	Gate bool
	// OnError decides when the hook fails (returns an error or panics);
	// OnTimeout when it fails with context.DeadlineExceeded while the run
	// goes on. Both default to FallbackBlock. For an after hook, allow
	// keeps the result as it was.
	OnError, OnTimeout Fallback
	// OnAsk decides a question when the run has no Approver; default
	// FallbackBlock.
	OnAsk Fallback
}

// HookOptioner is an optional interface of [BeforeToolCallHook] and
// [AfterToolCallHook]: the loop reads a hook's options from it.
type HookOptioner interface {
	HookOptions() HookOptions
}

// WithBeforeOptions returns h with options o.
func WithBeforeOptions(h BeforeToolCallHook, o HookOptions) BeforeToolCallHook {
	return &optionedBefore{BeforeToolCallHook: h, o: o}
}

// WithAfterOptions returns h with options o (Gate and OnAsk do not apply).
func WithAfterOptions(h AfterToolCallHook, o HookOptions) AfterToolCallHook {
	return &optionedAfter{AfterToolCallHook: h, o: o}
}

type optionedBefore struct {
	BeforeToolCallHook
	o HookOptions
}

func (h *optionedBefore) HookOptions() HookOptions { return h.o }

type optionedAfter struct {
	AfterToolCallHook
	o HookOptions
}

func (h *optionedAfter) HookOptions() HookOptions { return h.o }

var (
	_ HookOptioner = (*optionedBefore)(nil)
	_ HookOptioner = (*optionedAfter)(nil)
)

// optionsOf returns a hook's options.
func optionsOf(h any) HookOptions {
	if ho, ok := h.(HookOptioner); ok {
		return ho.HookOptions()
	}
	return HookOptions{}
}

// label names a hook of kind ("beforeToolCall") in texts: "beforeToolCall
// hook", or "beforeToolCall hook NAME".
func (o *HookOptions) label(kind string) string {
	if o.Name == "" {
		return kind + " hook"
	}
	return kind + " hook " + o.Name
}

func (o *HookOptions) applies(tool string) bool { return o.Tools == nil || o.Tools(tool) }

// HookReport says what one hook decided about one call, for audit logs
// (Config.OnHook). It is made after the hook answered and any question
// was decided.
type HookReport struct {
	ToolCallID string
	Tool       string
	Kind       string // "beforeToolCall" or "afterToolCall"
	Hook       string // HookOptions.Name
	Gate       bool
	// Decision is "allow", "block", "rewrite" or "error" for a before
	// hook; "keep", "modify" or "error" for an after hook.
	Decision string
	// Reason is the block reason or the error text.
	Reason string
	// Fallback is the fallback that decided a failure ("allow" or
	// "block"), empty when the hook did not fail.
	Fallback Fallback
	// Question and Answer are set when the hook asked; Answer is "yes",
	// "no", or what decided instead ("on_ask allow", "no answer: …").
	Question, Answer string
	// ArgsBefore and ArgsAfter are the arguments the hook saw and the ones
	// it left, when it rewrote them.
	ArgsBefore, ArgsAfter json.RawMessage
}
