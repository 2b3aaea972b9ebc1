package plugintest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
)

// Run runs a tool as the loop does: prepare_arguments (when the tool has
// it), coercion and validation against the tool's schema, then execute.
// A validation error is returned as the loop would report it.
func Run(t *testing.T, p *wasmtool.Plugin, name, args string) (host.ToolResult, error) {
	t.Helper()
	tool := Tool(t, p, name)
	raw := json.RawMessage(args)
	if pr, ok := tool.(host.ArgumentPreparer); ok {
		var err error
		if raw, err = pr.PrepareArguments(raw); err != nil {
			return host.ToolResult{}, err
		}
	}
	schema, err := host.CompileSchema(tool.Info().Parameters)
	if err != nil {
		t.Fatalf("tool %s: its schema does not compile: %v", name, err)
	}
	if raw, err = schema.ValidateArguments(name, raw); err != nil {
		return host.ToolResult{}, err
	}
	return tool.Execute(context.Background(), "call_1", raw, nil)
}
