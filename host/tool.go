package host

import (
	"context"
	"encoding/json"
	"fmt"
)

// ExecutionMode says whether a tool's calls may run beside other calls of
// the same assistant message.
type ExecutionMode string

// The execution modes. The zero value means parallel.
const (
	ExecutionParallel   ExecutionMode = "parallel"
	ExecutionSequential ExecutionMode = "sequential"
)

// Valid reports whether m is empty, "parallel" or "sequential".
func (m ExecutionMode) Valid() bool {
	return m == "" || m == ExecutionParallel || m == ExecutionSequential
}

// ToolInfo describes a tool.
type ToolInfo struct {
	Name        string
	Label       string
	Description string
	// Parameters is the JSON Schema (draft 2020-12 unless it says otherwise)
	// of the arguments object. Empty means any object.
	Parameters json.RawMessage
	// ExecutionMode "sequential" makes every batch that calls this tool run
	// one call at a time.
	ExecutionMode ExecutionMode
	// Hints are what the tool says of itself for clients that show or gate
	// calls (MCP tool annotations); the zero value claims nothing.
	Hints ToolHints
}

// ToolHints are a tool's own claims: hints, never a security boundary. A
// nil field claims nothing.
type ToolHints struct {
	ReadOnly    *bool // changes nothing outside itself
	Destructive *bool // may delete or overwrite
	Idempotent  *bool // a repeated call has no further effect
	OpenWorld   *bool // reaches outside the host (the network)
}

// IsZero reports whether h claims nothing.
func (h ToolHints) IsZero() bool {
	return h.ReadOnly == nil && h.Destructive == nil && h.Idempotent == nil && h.OpenWorld == nil
}

// ToolResult is what a tool returns: content for the model, details for
// the host and its subscribers, and the terminate hint (the batch ends the
// run's inner loop when every result of the batch says true). Terminate nil
// is absent; a false is kept and shows in tool_execution_end, as in pi.
type ToolResult struct {
	Content   Contents `json:"content"`
	Details   any      `json:"details,omitempty"`
	Terminate *bool    `json:"terminate,omitempty"`
	// Extra holds the members a tool returned beyond these, as one JSON
	// object (nil: none). pi passes a tool's result on as the object the
	// tool returned, so they show in tool_execution_end's result and in
	// what after hooks see; never in the result message, so never to the
	// model nor in the session; and an after hook that answers anything
	// drops them, as pi's rebuilding of the result does (docs/loop.md
	// 6.6). Members named content, details or terminate are left out: the
	// fields say those. A value that is not a JSON object makes the call
	// an error result saying so.
	Extra json.RawMessage `json:"-"`
}

// MarshalJSON implements json.Marshaler: the fields, then the members of
// Extra.
func (r ToolResult) MarshalJSON() ([]byte, error) {
	type plain ToolResult
	b, err := encodeJSON(plain(r))
	if err != nil || len(r.Extra) == 0 {
		return b, err
	}
	extra, err := extraMembers(r.Extra)
	if err != nil {
		return nil, err
	}
	if len(extra) == 0 {
		return b, nil
	}
	more := writeMembers(extra)
	out := make([]byte, 0, len(b)+len(more))
	out = append(out, b[:len(b)-1]...)
	out = append(out, ',')
	return append(out, more[1:]...), nil
}

// extraMembers returns the members of a result's Extra that are not its
// fields'.
func extraMembers(extra json.RawMessage) ([]member, error) {
	ms, err := objectMembers(extra)
	if err != nil {
		return nil, fmt.Errorf("the result's extra members: %w", err)
	}
	out := ms[:0]
	for _, m := range ms {
		switch m.name {
		case "content", "details", "terminate":
		default:
			out = append(out, m)
		}
	}
	return out, nil
}

// UpdateFunc sends a partial result; each becomes a tool_execution_update
// event, delivered in order and before the call's tool_execution_end. It
// never waits for subscribers: the event is queued and the tool goes on
// (pi's onUpdate). Calls made after Execute returns are ignored.
type UpdateFunc func(partial any)

// Tool is a tool the model can call.
//
// Execute runs one call with arguments that have been validated against
// Info().Parameters. A returned error becomes an error result whose text is
// err.Error(); so does a panic. Execute must honour ctx: when it is
// cancelled the run is being aborted.
type Tool interface {
	Info() ToolInfo
	Execute(ctx context.Context, toolCallID string, args json.RawMessage, onUpdate UpdateFunc) (ToolResult, error)
}

// ArgumentPreparer is an optional interface of a [Tool]: PrepareArguments
// rewrites the raw arguments before validation (for example to accept an
// older argument shape). Events, hooks and the result message keep the raw
// arguments.
type ArgumentPreparer interface {
	PrepareArguments(args json.RawMessage) (json.RawMessage, error)
}

// ContextArgumentPreparer is an optional interface of a [Tool] that is an
// [ArgumentPreparer] whose work can end with the run: the loop calls
// PrepareArgumentsContext, with the run's context, instead of
// PrepareArguments, so that an abort stops a plugin's prepare_arguments at
// once rather than at its timeout.
type ContextArgumentPreparer interface {
	PrepareArgumentsContext(ctx context.Context, args json.RawMessage) (json.RawMessage, error)
}

// ToolFunc is a tool made of its description and a function.
type ToolFunc struct {
	ToolInfo
	Func func(ctx context.Context, toolCallID string, args json.RawMessage, onUpdate UpdateFunc) (ToolResult, error)
	// Prepare, if set, implements ArgumentPreparer.
	Prepare func(args json.RawMessage) (json.RawMessage, error)
}

// Info implements Tool.
func (t *ToolFunc) Info() ToolInfo { return t.ToolInfo }

// Execute implements Tool.
func (t *ToolFunc) Execute(ctx context.Context, id string, args json.RawMessage, onUpdate UpdateFunc) (ToolResult, error) {
	return t.Func(ctx, id, args, onUpdate)
}

// PrepareArguments implements ArgumentPreparer; without Prepare it returns
// args unchanged.
func (t *ToolFunc) PrepareArguments(args json.RawMessage) (json.RawMessage, error) {
	if t.Prepare == nil {
		return args, nil
	}
	return t.Prepare(args)
}

var (
	_ Tool             = (*ToolFunc)(nil)
	_ ArgumentPreparer = (*ToolFunc)(nil)
)

// findTool returns the first tool named name, as pi does.
func findTool(tools []Tool, name string) Tool {
	for _, t := range tools {
		if t.Info().Name == name {
			return t
		}
	}
	return nil
}

// ToolSpecs describes tools for a model request.
func ToolSpecs(tools []Tool) []ToolSpec {
	specs := make([]ToolSpec, 0, len(tools))
	for _, t := range tools {
		info := t.Info()
		params := info.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		specs = append(specs, ToolSpec{Name: info.Name, Description: info.Description, Parameters: params})
	}
	return specs
}
