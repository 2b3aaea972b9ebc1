package wasmtool

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/sdk"
)

// BeforeToolCall is the plugin's beforeToolCall hook, or nil if it is not
// one.
func (p *Plugin) BeforeToolCall() host.BeforeToolCallHook {
	if !p.hasHook(sdk.HookBeforeToolCall) {
		return nil
	}
	return host.BeforeToolCallFunc(p.beforeToolCall)
}

// AfterToolCall is the plugin's afterToolCall hook, or nil if it is not
// one.
func (p *Plugin) AfterToolCall() host.AfterToolCallHook {
	if !p.hasHook(sdk.HookAfterToolCall) {
		return nil
	}
	return host.AfterToolCallFunc(p.afterToolCall)
}

func wireCall(c *host.ToolCallContext) sdk.ToolCall {
	return sdk.ToolCall{ID: c.ToolCall.ID, Name: c.ToolCall.Name, Arguments: host.ArgumentsJSON(c.ToolCall.Arguments)}
}

func (p *Plugin) beforeToolCall(ctx context.Context, c *host.ToolCallContext) (*host.BeforeToolCallResult, error) {
	in, err := json.Marshal(sdk.BeforeInput{ToolCall: wireCall(c), Args: c.Args})
	if err != nil {
		return nil, err
	}
	rp, err := p.plugin(ctx)
	if err != nil {
		return nil, err
	}
	out, err := rp.Call(ctx, sdk.ExportBeforeToolCall, in, nil)
	if err != nil {
		return nil, callErr(err)
	}
	r, warnings, err := parseBefore(out)
	if err != nil {
		return nil, clipErr(fmt.Errorf("plugin %s: before_tool_call: %w", p.Name(), err))
	}
	p.warn(sdk.ExportBeforeToolCall, warnings)
	return r, nil
}

// Gate reports whether the plugin declares its beforeToolCall hook a gate.
func (p *Plugin) Gate() bool { return p.desc.Gate }

func (p *Plugin) afterToolCall(ctx context.Context, c *host.AfterToolCallContext) (*host.AfterToolCallResult, error) {
	// The result as pi's hook sees it: the object the tool returned, its
	// terminate and extra members too, with the ABI's content blocks.
	result := host.ToolResult{Content: host.Contents{}, Terminate: c.Result.Terminate, Extra: c.Result.Extra}
	for _, b := range c.Result.Content {
		switch b.(type) {
		case host.TextContent, host.ImageContent:
			result.Content = append(result.Content, b)
		}
	}
	if c.Result.Details != nil {
		d, err := json.Marshal(c.Result.Details)
		if err != nil {
			return nil, fmt.Errorf("after_tool_call: the result's details: %w", err)
		}
		result.Details = json.RawMessage(d)
	}
	in, err := json.Marshal(afterInput{ToolCall: wireCall(&c.ToolCallContext), Args: c.Args, Result: result, IsError: c.IsError})
	if err != nil {
		return nil, err
	}
	rp, err := p.plugin(ctx)
	if err != nil {
		return nil, err
	}
	out, err := rp.Call(ctx, sdk.ExportAfterToolCall, in, nil)
	if err != nil {
		return nil, callErr(err)
	}
	res, warnings, err := parseAfter(out)
	if err != nil {
		return nil, clipErr(fmt.Errorf("plugin %s: after_tool_call: %w", p.Name(), err))
	}
	p.warn(sdk.ExportAfterToolCall, warnings)
	return res, nil
}

// warn logs what was noticed in an answer of export that pi would carry
// on with, one line each (Options.Logger).
func (p *Plugin) warn(export string, warnings []string) {
	if p.log == nil {
		return
	}
	for _, w := range warnings {
		p.log.Warn("a hook's answer is read as pi reads it", "plugin", p.Name(), "export", export, "warning", w)
	}
}

// afterInput is the input of after_tool_call (sdk.AfterInput, whose
// result a host writes whole: its terminate and extra members too).
type afterInput struct {
	ToolCall sdk.ToolCall    `json:"toolCall"`
	Args     json.RawMessage `json:"args"`
	Result   host.ToolResult `json:"result"`
	IsError  bool            `json:"isError"`
}
