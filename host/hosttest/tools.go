package hosttest

import (
	"context"
	"encoding/json"

	"github.com/wasmagent/wasmagent/host"
)

// Func is the signature of a test tool's body.
type Func func(ctx context.Context, id string, args json.RawMessage, onUpdate host.UpdateFunc) (host.ToolResult, error)

// Tool returns a tool named name with the given schema (empty means any
// object) and body.
func Tool(name, schema string, fn Func) *host.ToolFunc {
	return &host.ToolFunc{
		ToolInfo: host.ToolInfo{Name: name, Label: name, Description: "test tool " + name, Parameters: json.RawMessage(schema)},
		Func:     fn,
	}
}

// Echo returns a tool that answers with its arguments as text.
func Echo(name string) *host.ToolFunc {
	return Tool(name, "", func(_ context.Context, _ string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
		return host.ToolResult{Content: host.Text(string(args))}, nil
	})
}

// Sequential marks t as sequential and returns it.
func Sequential(t *host.ToolFunc) *host.ToolFunc {
	t.ExecutionMode = host.ExecutionSequential
	return t
}
