package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
	"github.com/wasmagent/wasmagent/internal/words"
	"github.com/wasmagent/wasmagent/sdk"
)

// hookCallFlags make a sample call without writing the host's JSON.
type hookCallFlags struct {
	tool, args, result *string
	isError            *bool
}

func addHookCallFlags(f *flags) *hookCallFlags {
	return &hookCallFlags{
		tool:    f.String("tool", "", "with --hook: the sample call's tool `name`"),
		args:    f.String("args", "", "with --hook: the sample call's arguments, a JSON `object` (default {})"),
		result:  f.String("result", "", "with --hook after: the sample result's `text`"),
		isError: f.Bool("is-error", false, "with --hook after: the sample result is an error"),
	}
}

func (h *hookCallFlags) set() bool {
	return *h.tool != "" || *h.args != "" || *h.result != "" || *h.isError
}

// hookCall is a hook run on a sample call: in is the JSON the host sends to
// before_tool_call or after_tool_call.
type hookCall struct {
	kind, file string
	in         sdk.AfterInput // AfterInput holds BeforeInput's fields too
}

func newHookCall(kind string, args []string, input string, hf *hookCallFlags, env Env) (*hookCall, error) {
	if len(args) < 1 && strings.HasSuffix(input, ".wasm") {
		return nil, fmt.Errorf("--input took %s as its FILE: it names the file to read CALL_JSON from (or - for stdin); the plugin comes after the flags", input)
	}
	if len(args) < 1 || len(args) > 2 {
		return nil, errors.New("want --hook before|after FILE.wasm ['CALL_JSON'] (or --tool and --args instead of CALL_JSON)")
	}
	c := &hookCall{kind: kind, file: args[0]}
	raw, err := readInput(args[1:], input, "CALL_JSON", env)
	if err != nil {
		return nil, err
	}
	switch {
	case raw != "" && hf.set():
		return nil, errors.New("give CALL_JSON or --tool/--args/--result/--is-error, not both")
	case raw != "":
		if err := checkJSON("CALL_JSON", input, raw); err != nil {
			return nil, err
		}
		if err := c.decode([]byte(raw)); err != nil {
			return nil, err
		}
	default:
		if err := c.fromFlags(hf); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// decode reads CALL_JSON strictly: a misspelt field would otherwise test a
// call the host never sends.
func (c *hookCall) decode(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var err error
	if c.kind == "before" {
		var in sdk.BeforeInput
		err = dec.Decode(&in)
		c.in = sdk.AfterInput{ToolCall: in.ToolCall, Args: in.Args}
	} else {
		err = dec.Decode(&c.in)
	}
	if err != nil {
		return fmt.Errorf("CALL_JSON: %v (want the JSON the host sends to %s; see docs/abi.md)", err, c.export())
	}
	if dec.More() {
		return errors.New("CALL_JSON: more than one JSON value")
	}
	if c.in.ToolCall.Name == "" {
		return errors.New(`CALL_JSON: toolCall.name is missing (as in {"toolCall":{"id":"call_1","name":"write","arguments":{}}})`)
	}
	if c.in.ToolCall.ID == "" {
		c.in.ToolCall.ID = "call_1"
	}
	if len(c.in.Args) == 0 {
		c.in.Args = c.in.ToolCall.Arguments
	}
	if _, err := wasmtool.HostContent(c.in.Result.Content); err != nil { // what a plugin's tool could not return
		return fmt.Errorf("CALL_JSON: result.%v", err)
	}
	return nil
}

func (c *hookCall) fromFlags(hf *hookCallFlags) error {
	if *hf.tool == "" {
		return errors.New("--hook needs CALL_JSON or --tool NAME")
	}
	if c.kind == "before" && (*hf.result != "" || *hf.isError) {
		return errors.New("--result and --is-error go with --hook after")
	}
	args := json.RawMessage(`{}`)
	if *hf.args != "" {
		if err := checkJSON("--args", "", *hf.args); err != nil {
			return err
		}
		args = json.RawMessage(*hf.args)
	}
	c.in = sdk.AfterInput{ToolCall: sdk.ToolCall{ID: "call_1", Name: *hf.tool, Arguments: args}, Args: args, IsError: *hf.isError}
	c.in.Result.Content = []sdk.Content{{Type: "text", Text: *hf.result}}
	return nil
}

func (c *hookCall) export() string {
	if c.kind == "before" {
		return sdk.ExportBeforeToolCall
	}
	return sdk.ExportAfterToolCall
}

func (c *hookCall) path() string { return c.file }

func (c *hookCall) run(ctx context.Context, p *wasmtool.Plugin, env Env) (any, int) {
	tc := host.ToolCall{ID: c.in.ToolCall.ID, Name: c.in.ToolCall.Name, Arguments: c.in.ToolCall.Arguments}
	call := host.ToolCallContext{
		AssistantMessage: &host.AssistantMessage{Content: host.Contents{tc}, StopReason: host.StopReasonToolUse},
		ToolCall:         tc,
		Args:             c.in.Args,
		Context:          &host.Context{},
	}
	call.Context.Messages = []host.Message{call.AssistantMessage}
	var out any
	var err error
	if c.kind == "before" {
		h := p.BeforeToolCall()
		if h == nil {
			return nil, c.noHook(env, sdk.HookBeforeToolCall, p)
		}
		var r *host.BeforeToolCallResult
		if r, err = h.BeforeToolCall(ctx, &call); err == nil {
			if r == nil {
				r = &host.BeforeToolCallResult{}
			}
			verdict := "allowed"
			switch {
			case r.Block:
				verdict = "blocked: " + printable(r.Reason)
			case r.Ask != "" && len(r.Args) > 0:
				verdict = "asks (then rewrites the arguments): " + printable(r.Ask)
			case r.Ask != "":
				verdict = "asks: " + printable(r.Ask)
			case len(r.Args) > 0:
				verdict = "rewrites the arguments to " + printable(clip(string(r.Args), 200))
			}
			fmt.Fprintln(env.Stderr, verdict)
			out = r
		}
	} else {
		h := p.AfterToolCall()
		if h == nil {
			return nil, c.noHook(env, sdk.HookAfterToolCall, p)
		}
		var content host.Contents
		content, _ = wasmtool.HostContent(c.in.Result.Content) // checked in decode
		res := host.ToolResult{Content: content}
		if len(c.in.Result.Details) > 0 {
			res.Details = c.in.Result.Details
		}
		var r *host.AfterToolCallResult
		if r, err = h.AfterToolCall(ctx, &host.AfterToolCallContext{ToolCallContext: call, Result: res, IsError: c.in.IsError}); err == nil {
			fmt.Fprintln(env.Stderr, afterVerdict(r))
			if r == nil {
				r = &host.AfterToolCallResult{}
			}
			out = r
		}
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "error: %s\n", printable(err.Error()))
		if errors.Is(err, context.Canceled) {
			return nil, ExitAborted
		}
		return nil, ExitFailed
	}
	return out, ExitOK
}

// afterVerdict says what an after hook's answer does to the result: an
// answer of nothing (null, false, "") keeps it whole, while any object,
// even {}, rebuilds it, as pi does (docs/abi.md).
func afterVerdict(r *host.AfterToolCallResult) string {
	if r == nil {
		return "keeps the result as it is"
	}
	var did []string
	if r.Content != nil {
		did = append(did, "replaces the content")
	}
	if r.Details != nil {
		did = append(did, "replaces the details")
	}
	if r.IsError != nil {
		did = append(did, fmt.Sprintf("sets isError to %t", *r.IsError))
	}
	if r.Terminate != nil {
		did = append(did, fmt.Sprintf("sets terminate to %t", *r.Terminate))
	}
	if len(did) == 0 {
		return "rebuilds the result unchanged, of its content, details and terminate: the tool's other members are dropped (answer null to keep it whole)"
	}
	return strings.Join(did, ", ")
}

func (c *hookCall) noHook(env Env, hook string, p *wasmtool.Plugin) int {
	fmt.Fprintf(env.Stderr, "%s has no %s hook (it has %s)\n", c.file, hook, words.Named("hook", p.Description().Hooks))
	return ExitUsage
}
