package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// An Agent with one Go tool, driven by a scripted model.
func ExampleAgent() {
	weather := &host.ToolFunc{
		ToolInfo: host.ToolInfo{
			Name:        "weather",
			Description: "Current weather for a city",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		},
		Func: func(_ context.Context, _ string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
			var a struct{ City string }
			if err := json.Unmarshal(args, &a); err != nil {
				return host.ToolResult{}, err
			}
			return host.ToolResult{Content: host.Text("Sunny in " + a.City)}, nil
		},
	}
	model := scripted.Of(
		scripted.Turn{Content: host.Contents{host.ToolCall{ID: "1", Name: "weather", Arguments: json.RawMessage(`{"city":"Kyoto"}`)}}},
		scripted.Turn{Content: host.Text("It is sunny in Kyoto.")},
	)
	agent := host.NewAgent(host.AgentOptions{Model: model, Tools: []host.Tool{weather}})
	agent.Subscribe(func(_ context.Context, e host.Event) error {
		switch e := e.(type) {
		case host.ToolExecutionEndEvent:
			fmt.Println("tool:", e.Result.Content.TextOf())
		case host.AgentEndEvent:
			fmt.Println("messages:", len(e.Messages))
		}
		return nil
	})
	if err := agent.PromptText(context.Background(), "Weather in Kyoto?"); err != nil {
		fmt.Println(err)
	}
	msgs := agent.State().Messages
	fmt.Println("answer:", msgs[len(msgs)-1].(*host.AssistantMessage).Content.TextOf())
	// Output:
	// tool: Sunny in Kyoto
	// messages: 4
	// answer: It is sunny in Kyoto.
}

// One tool call through the five stages without a model, as an MCP server
// runs it: a hook rewrites the path, a gate checks the final one.
func ExampleToolRunner() {
	read := &host.ToolFunc{
		ToolInfo: host.ToolInfo{Name: "read", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		Func: func(_ context.Context, _ string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
			return host.ToolResult{Content: host.Text("read " + string(args))}, nil
		},
	}
	underWork := host.BeforeToolCallFunc(func(_ context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
		var a struct{ Path string }
		json.Unmarshal(c.Args, &a)
		args, _ := json.Marshal(map[string]string{"path": "/work/" + a.Path})
		return &host.BeforeToolCallResult{Args: args}, nil
	})
	noEnv := host.BeforeToolCallFunc(func(_ context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
		if bytes.Contains(c.Args, []byte(".env")) {
			return &host.BeforeToolCallResult{Block: true, Reason: "no .env"}, nil
		}
		return nil, nil
	})
	tr := &host.ToolRunner{
		Tools: []host.Tool{read},
		BeforeToolCall: []host.BeforeToolCallHook{
			host.WithBeforeOptions(noEnv, host.HookOptions{Name: "no-env", Gate: true}), // runs last
			host.WithBeforeOptions(underWork, host.HookOptions{Name: "under-work"}),
		},
	}
	for _, args := range []string{`{"path":"notes.txt"}`, `{"path":".env"}`} {
		out := tr.Run(context.Background(), nil, nil, host.ToolCall{ID: "1", Name: "read", Arguments: json.RawMessage(args)}, nil)
		fmt.Println(out.IsError, out.Result.Content.TextOf())
	}
	// Output:
	// false read {"path":"/work/notes.txt"}
	// true no .env
}
