package host

import (
	"context"
	"encoding/json"
)

// Model streams one assistant message.
//
// Stream is called once per turn. It calls emit for each step of the
// response, in pi-ai's order: start, then per content block X_start,
// X_delta…, X_end, then done or error. It returns the final message.
//
// Contract:
//  1. Stream must not panic and must not return an error: every failure is
//     encoded in the returned message (StopReason "error" with ErrorMessage).
//  2. When ctx is cancelled, Stream returns promptly, without waiting on the
//     network, a message with StopReason "aborted".
//  3. Stream must not modify a message after passing it to emit; the loop
//     copies what it keeps.
//  4. emit must not be called after Stream returns.
type Model interface {
	Stream(ctx context.Context, req *Request, emit func(AssistantMessageEvent)) *AssistantMessage
}

// ModelFunc adapts a function to [Model].
type ModelFunc func(ctx context.Context, req *Request, emit func(AssistantMessageEvent)) *AssistantMessage

// Stream implements Model.
func (f ModelFunc) Stream(ctx context.Context, req *Request, emit func(AssistantMessageEvent)) *AssistantMessage {
	return f(ctx, req, emit)
}

var _ Model = ModelFunc(nil)

// ModelInfo names a model the way assistant messages do.
type ModelInfo struct {
	API      string
	Provider string
	ID       string
}

// ModelDescriber is an optional interface of a [Model]: the loop uses it to
// label the synthetic assistant message of a run that failed.
type ModelDescriber interface {
	ModelInfo() ModelInfo
}

// Request is what the model is asked: the system prompt, the transcript
// after TransformContext and ConvertToLLM, and the tools it may call.
type Request struct {
	SystemPrompt string
	Messages     []Message
	Tools        []ToolSpec
	// Reasoning is the thinking level ("minimal" … "xhigh"), empty for off.
	Reasoning string
}

// ToolSpec is what the model is told about a tool.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}
