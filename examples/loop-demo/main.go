// Command loop-demo runs an offline, scripted session through host.Agent
// with two Go tools and a policy hook, and prints the event flow: three
// fetches run in parallel and end in completion order, a sequential tool
// forces its batch to run one call at a time, and a before-hook blocks one
// call, which the model is told about.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
)

func main() {
	script := filepath.Join("examples", "loop-demo", "script.json")
	if len(os.Args) > 1 {
		script = os.Args[1]
	}
	if err := run(context.Background(), script, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loop-demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, scriptPath string, out io.Writer) error {
	s, err := scripted.Load(scriptPath)
	if err != nil {
		return err
	}
	agent := host.NewAgent(host.AgentOptions{
		SystemPrompt:   "You are a research assistant.",
		Model:          scripted.New(s),
		Tools:          []host.Tool{fetchTool(), writeTool()},
		BeforeToolCall: []host.BeforeToolCallHook{host.BeforeToolCallFunc(policy)},
	})
	start := time.Now()
	agent.Subscribe(func(_ context.Context, e host.Event) error {
		printEvent(out, time.Since(start), e)
		return nil
	})
	return agent.PromptText(ctx, "Fetch a, b and c, then save a summary and the API key.")
}

// policy refuses writes to dotfiles.
func policy(_ context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
	var a struct{ Path string }
	json.Unmarshal(c.Args, &a)
	if c.ToolCall.Name == "write" && strings.HasPrefix(filepath.Base(a.Path), ".") {
		return &host.BeforeToolCallResult{Block: true, Reason: "policy: writing dotfiles (" + a.Path + ") is not allowed"}, nil
	}
	return nil, nil
}

func fetchTool() host.Tool {
	return &host.ToolFunc{
		ToolInfo: host.ToolInfo{Name: "fetch", Label: "Fetch", Description: "Fetch a URL (simulated)",
			Parameters: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"},"ms":{"type":"integer","minimum":0,"maximum":5000}},"required":["url"]}`)},
		Func: func(ctx context.Context, _ string, args json.RawMessage, up host.UpdateFunc) (host.ToolResult, error) {
			var a struct {
				URL string
				Ms  int
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return host.ToolResult{}, err
			}
			up(map[string]any{"status": "connecting"})
			select {
			case <-time.After(time.Duration(a.Ms) * time.Millisecond):
			case <-ctx.Done():
				return host.ToolResult{}, ctx.Err()
			}
			return host.ToolResult{Content: host.Text("<html>page " + a.URL + "</html>"), Details: map[string]any{"ms": a.Ms}}, nil
		},
	}
}

func writeTool() host.Tool {
	return &host.ToolFunc{
		ToolInfo: host.ToolInfo{Name: "write", Label: "Write", Description: "Write a file (simulated)", ExecutionMode: host.ExecutionSequential,
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"}},"required":["path","text"]}`)},
		Func: func(_ context.Context, _ string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
			var a struct{ Path, Text string }
			json.Unmarshal(args, &a)
			return host.ToolResult{Content: host.Text(fmt.Sprintf("wrote %d bytes to %s", len(a.Text), a.Path))}, nil
		},
	}
}

func printEvent(out io.Writer, at time.Duration, e host.Event) {
	ms := at.Milliseconds() / 50 * 50 // coarse, so the output reads the same run to run
	switch e := e.(type) {
	case host.MessageUpdateEvent:
		if d := e.AssistantMessageEvent.Delta; e.AssistantMessageEvent.Type == host.StreamTextDelta {
			fmt.Fprint(out, d)
		}
		return
	case host.MessageEndEvent:
		if m, ok := e.Message.(*host.AssistantMessage); ok && m.Content.TextOf() != "" {
			fmt.Fprintln(out)
		}
		return
	case host.ToolExecutionStartEvent:
		fmt.Fprintf(out, "  ~%4dms start  %s %s %s\n", ms, e.ToolCallID, e.ToolName, e.Args)
	case host.ToolExecutionUpdateEvent:
		fmt.Fprintf(out, "  ~%4dms update %s %v\n", ms, e.ToolCallID, e.PartialResult)
	case host.ToolExecutionEndEvent:
		status := "ok"
		if e.IsError {
			status = "ERROR"
		}
		fmt.Fprintf(out, "  ~%4dms end    %s %s: %s\n", ms, e.ToolCallID, status, e.Result.Content.TextOf())
	case host.TurnStartEvent, host.AgentStartEvent, host.AgentEndEvent, host.TurnEndEvent:
		fmt.Fprintf(out, "[%s]\n", e.EventType())
	}
}
