package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
)

// hookCmd runs a plugin's beforeToolCall or afterToolCall hook once on a
// call the command line describes, and prints its decision as JSON.
func hookCmd(ctx context.Context, args []string, env Env) int {
	fs := newFlags("plugin hook", "plugin hook [grant flags] [--is-error] FILE.wasm before|after TOOL 'ARGS_JSON' ['RESULT_JSON']", `  wasmagent plugin hook plugins/policy/policy.wasm before write '{"path":"/etc/passwd"}'
  wasmagent plugin hook redact.wasm after read '{"path":"a"}' '{"content":[{"type":"text","text":"key=abc"}]}'
`, env)
	gf := addGrantFlags(fs)
	isError := fs.Bool("is-error", false, "after: the result is an error result")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() < 4 || fs.NArg() > 5 || (fs.Arg(1) != "before" && fs.Arg(1) != "after") || (fs.Arg(1) == "before" && fs.NArg() != 4) {
		fs.Usage()
		return ExitUsage
	}
	path, which, tool, rawArgs := fs.Arg(0), fs.Arg(1), fs.Arg(2), fs.Arg(3)
	var obj map[string]any
	if err := json.Unmarshal([]byte(rawArgs), &obj); err != nil || obj == nil {
		fmt.Fprintf(env.Stderr, "ARGS_JSON %q: not a JSON object\n", rawArgs)
		return ExitUsage
	}
	var result host.ToolResult
	if fs.NArg() == 5 {
		dec := json.NewDecoder(strings.NewReader(fs.Arg(4)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&result); err != nil {
			fmt.Fprintf(env.Stderr, "RESULT_JSON: %v (write {\"content\":[{\"type\":\"text\",\"text\":\"…\"}],\"details\":…})\n", err)
			return ExitUsage
		}
	}
	g, err := gf.grants()
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return ExitUsage
	}
	rt, err := newRuntime(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return ExitFailed
	}
	defer rt.Close(ctx)
	p, err := wasmtool.Load(ctx, rt, path, wasmtool.Options{Grants: g})
	if err != nil {
		fmt.Fprintln(env.Stderr, err)
		return ExitUsage
	}
	defer p.Close()
	call := host.ToolCallContext{ToolCall: host.ToolCall{ID: "call_1", Name: tool, Arguments: json.RawMessage(rawArgs)}, Args: json.RawMessage(rawArgs)}
	var out any
	if which == "before" {
		h := p.BeforeToolCall()
		if h == nil {
			fmt.Fprintf(env.Stderr, "%s is not a beforeToolCall hook\n", path)
			return ExitUsage
		}
		out, err = h.BeforeToolCall(ctx, &call)
	} else {
		h := p.AfterToolCall()
		if h == nil {
			fmt.Fprintf(env.Stderr, "%s is not an afterToolCall hook\n", path)
			return ExitUsage
		}
		out, err = h.AfterToolCall(ctx, &host.AfterToolCallContext{ToolCallContext: call, Result: result, IsError: *isError})
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "error: %v\n", err)
		return ExitFailed
	}
	b, _ := json.Marshal(out)
	fmt.Fprintf(env.Stdout, "%s\n", b)
	return ExitOK
}
