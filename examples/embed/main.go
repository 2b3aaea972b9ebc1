// Command embed shows host.Agent embedded in a Go program, with one Wasm
// tool (calc, from plugins/calc), one native Go tool and a Go hook, driven
// by a scripted model so that it runs offline:
//
//	make plugins && go run ./examples/embed
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
	_ "time/tzdata" // the clock tool works on machines without a zoneinfo database

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/runtime"
)

func main() {
	calc := flag.String("calc", "plugins/calc/calc.wasm", "the calc plugin (make plugins builds it)")
	flag.Parse()
	if err := run(context.Background(), *calc, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, calcPath string, out io.Writer) error {
	// One runtime per process: it compiles each plugin once and caches the
	// machine code on disk.
	rt, err := runtime.New(ctx, runtime.Options{})
	if err != nil {
		return err
	}
	defer rt.Close(ctx)

	// A Wasm tool, with its grants (none needed beyond a timeout).
	calc, err := wasmtool.Load(ctx, rt, calcPath, wasmtool.Options{
		Grants:   runtime.Grants{Timeout: 5 * time.Second},
		PoolSize: 2,
	})
	if errors.Is(err, fs.ErrNotExist) {
		// The default is relative to the working directory: the repository's
		// root, where make plugins writes it.
		return fmt.Errorf("%w (run from the repository's root after make plugins, or name the file with -calc PATH)", err)
	}
	if err != nil {
		return err
	}
	defer calc.Close()

	// A native Go tool next to it.
	clock := &host.ToolFunc{
		ToolInfo: host.ToolInfo{
			Name: "clock", Description: "The current time in a time zone.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string"}},"required":["zone"]}`),
		},
		Func: func(ctx context.Context, id string, args json.RawMessage, _ host.UpdateFunc) (host.ToolResult, error) {
			var a struct{ Zone string }
			json.Unmarshal(args, &a)
			loc, err := time.LoadLocation(a.Zone)
			if err != nil {
				return host.ToolResult{}, fmt.Errorf("unknown time zone %q", a.Zone)
			}
			return host.ToolResult{Content: host.Text(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC).In(loc).Format("15:04 MST"))}, nil
		},
	}

	// A Go hook: no arithmetic on expressions longer than 200 characters.
	guard := host.BeforeToolCallFunc(func(ctx context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
		var a struct{ Expression string }
		json.Unmarshal(c.Args, &a)
		if len(a.Expression) > 200 {
			return &host.BeforeToolCallResult{Block: true, Reason: "expression too long"}, nil
		}
		return nil, nil
	})

	model := scripted.Of(
		scripted.Turn{Content: host.Contents{
			host.ToolCall{ID: "c1", Name: "calc", Arguments: json.RawMessage(`{"expression":"365*24*60"}`)},
			host.ToolCall{ID: "c2", Name: "clock", Arguments: json.RawMessage(`{"zone":"Asia/Tokyo"}`)},
		}},
		scripted.Turn{Content: host.Text("A year has 525600 minutes, and it is 21:00 in Tokyo.")},
	)
	agent := host.NewAgent(host.AgentOptions{
		Model:          model,
		SystemPrompt:   "Answer with the tools.",
		Tools:          append(calc.Tools(), clock),
		BeforeToolCall: []host.BeforeToolCallHook{guard},
	})
	agent.Subscribe(func(ctx context.Context, e host.Event) error {
		switch e := e.(type) {
		case host.ToolExecutionEndEvent:
			fmt.Fprintf(out, "tool %s: %s\n", e.ToolName, e.Result.Content.TextOf())
		case host.MessageEndEvent:
			if m, ok := e.Message.(*host.AssistantMessage); ok && m.Content.TextOf() != "" {
				fmt.Fprintf(out, "assistant: %s\n", strings.TrimSpace(m.Content.TextOf()))
			}
		}
		return nil
	})
	return agent.PromptText(ctx, "How many minutes in a year, and what time is it in Tokyo?")
}
