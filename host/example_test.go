package host_test

import (
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
