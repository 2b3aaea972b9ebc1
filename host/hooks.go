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
	// Args are the prepared, coerced and validated arguments.
	Args json.RawMessage
	// Context is the run's context. Its messages end with the assistant
	// message; sibling results of the same batch are never in it. Hooks
	// must not modify it.
	Context *Context
}

// BeforeToolCallResult blocks a call when Block is true; Reason is what the
// model is told (default "Tool execution was blocked").
type BeforeToolCallResult struct {
	Block  bool   `json:"block,omitempty"`
	Reason string `json:"reason,omitempty"`
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
