package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/plugintest"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// What MCP adds to a call: tools/call from the official Go client over
// the stdio transport (in-process pipes, JSON-RPC both ways) against the
// same call through the ToolRunner directly, for a module without a
// language runtime (small) and a standard-Go plugin (go).
//
//	go test ./host/mcp -run '^$' -bench MCPCall -count 3
func BenchmarkMCPCall(b *testing.B) {
	ctx := context.Background()
	small, err := wasmtool.LoadBytes(ctx, plugintest.Runtime(b), "const.wasm", wasmbuild.ConstPlugin(map[string]string{
		"describe": `{"abi":1,"name":"const","tools":[{"name":"echo","description":"ok","parameters":{"type":"object"}}]}`,
		"execute":  `{"content":[{"type":"text","text":"ok"}]}`,
	}), wasmtool.Options{PoolSize: 4})
	if err != nil {
		b.Fatal(err)
	}
	defer small.Close()
	goPlugin, err := wasmtool.Load(ctx, plugintest.Runtime(b), wasmbuild.ForTest(b, "internal/testplugins/probe"), wasmtool.Options{Name: "probe", PoolSize: 4})
	if err != nil {
		b.Fatal(err)
	}
	defer goPlugin.Close()
	for _, p := range []struct {
		name string
		tool host.Tool
	}{{"small", small.Tools()[0]}, {"go", goPlugin.Tools()[0]}} {
		runner := &host.ToolRunner{Tools: []host.Tool{p.tool}}
		args := json.RawMessage(`{"text":"1"}`)
		b.Run(p.name+"/runner", func(b *testing.B) {
			call := host.ToolCall{ID: "1", Name: "echo", Arguments: args}
			for b.Loop() {
				if out := runner.Run(ctx, nil, nil, call, nil); out.IsError {
					b.Fatal(out.Result.Content.TextOf())
				}
			}
		})
		b.Run(p.name+"/mcp-stdio", func(b *testing.B) {
			cs := connect(b, newServer(b, runner), nil)
			params := &sdk.CallToolParams{Name: "echo", Arguments: args}
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
