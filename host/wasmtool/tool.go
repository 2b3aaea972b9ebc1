package wasmtool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// tool is one tool of a plugin, as a host.Tool.
type tool struct {
	p    *Plugin
	spec sdk.ToolSpec
}

var (
	_ host.Tool                    = (*tool)(nil)
	_ host.ArgumentPreparer        = (*tool)(nil)
	_ host.ContextArgumentPreparer = (*tool)(nil)
)

func (t *tool) Info() host.ToolInfo {
	return host.ToolInfo{
		Name:          t.spec.Name,
		Label:         t.spec.Label,
		Description:   t.spec.Description,
		Parameters:    t.spec.Parameters,
		ExecutionMode: host.ExecutionMode(t.spec.ExecutionMode),
		Hints:         hints(t.spec.Annotations),
	}
}

// hints are the tool's annotations as the host keeps them.
func hints(a *sdk.Annotations) host.ToolHints {
	if a == nil {
		return host.ToolHints{}
	}
	return host.ToolHints{ReadOnly: a.ReadOnly, Destructive: a.Destructive, Idempotent: a.Idempotent, OpenWorld: a.OpenWorld}
}

// PrepareArguments is PrepareArgumentsContext without a context: the
// plugin's timeout bounds it.
func (t *tool) PrepareArguments(args json.RawMessage) (json.RawMessage, error) {
	return t.PrepareArgumentsContext(context.Background(), args)
}

// PrepareArgumentsContext calls prepare_arguments for tools that ask for
// it; it ends with ctx, as every call of the plugin does.
func (t *tool) PrepareArgumentsContext(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	if !t.spec.PrepareArguments {
		return args, nil
	}
	in, err := json.Marshal(sdk.PrepareInput{Name: t.spec.Name, Args: args})
	if err != nil {
		return nil, err
	}
	rp, err := t.p.plugin(ctx)
	if err != nil {
		return nil, err
	}
	out, err := rp.Call(ctx, sdk.ExportPrepareArguments, in, nil)
	if err != nil {
		return nil, callErr(err)
	}
	if err := checkJSON(out); err != nil {
		return nil, fmt.Errorf("plugin %s: prepare_arguments: %w", t.p.Name(), err)
	}
	return validText(out), nil
}

func (t *tool) Execute(ctx context.Context, id string, args json.RawMessage, onUpdate host.UpdateFunc) (host.ToolResult, error) {
	in, err := json.Marshal(sdk.ExecuteInput{ToolCallID: id, Name: t.spec.Name, Args: args})
	if err != nil {
		return host.ToolResult{}, err
	}
	var parts []string
	opts := &runtime.CallOptions{Parts: &parts, OnUpdate: func(payload []byte) error {
		var r wireResult
		if _, err := decodeResult(payload, &r); err != nil {
			return clipErr(fmt.Errorf("the update is not a result: %w", err))
		}
		if _, err := HostContent(r.Content); err != nil {
			return clipErr(fmt.Errorf("the update is not a result: %w", err))
		}
		if onUpdate != nil {
			onUpdate(json.RawMessage(validText(payload)))
		}
		return nil
	}}
	rp, err := t.p.plugin(ctx)
	if err != nil {
		return host.ToolResult{}, err
	}
	out, err := rp.Call(ctx, sdk.ExportExecute, in, opts)
	if err != nil {
		return host.ToolResult{}, callErr(err)
	}
	var res host.ToolResult
	var isError bool
	if parts != nil {
		res, isError, err = parseResultParts(out, parts)
	} else {
		res, isError, err = parseResult(out)
	}
	if err != nil {
		return host.ToolResult{}, clipErr(fmt.Errorf("plugin %s: execute: %w", t.p.Name(), err))
	}
	if isError {
		// A tool signals failure the way pi's tools do, by failing: the
		// error result carries the text (details are not kept).
		return host.ToolResult{}, errors.New(res.Content.TextOf())
	}
	return res, nil
}

// parseResult decodes an execute output.
func parseResult(out []byte) (res host.ToolResult, isError bool, err error) {
	var r wireResult
	extra, err := decodeResult(out, &r)
	if err != nil {
		return res, false, err
	}
	if r.Content == nil {
		return res, false, errors.New(`the result has no "content"` + resultShape)
	}
	return toolResult(&r, extra)
}

// toolResult checks and converts a decoded result; extra are its members
// beyond the ABI's. Details given as null stay null, as pi keeps them.
func toolResult(r *wireResult, extra json.RawMessage) (res host.ToolResult, isError bool, err error) {
	content, err := HostContent(r.Content)
	if err != nil {
		return res, false, err
	}
	res = host.ToolResult{Content: content, Terminate: r.Terminate, Extra: extra}
	if len(r.Details) > 0 {
		res.Details = r.Details
	}
	return res, r.IsError, nil
}

// wireResult is an execute output (or an update) as the host reads it.
type wireResult struct {
	Content   blockList[sdk.Content] `json:"content"`
	Details   json.RawMessage        `json:"details"`
	IsError   bool                   `json:"isError"`
	Terminate *bool                  `json:"terminate"`
}

// HostContent checks and converts content blocks as the ABI defines them
// (docs/abi.md): text, or image with base64 data and a bare image MIME
// type (checkImage). Every reader of ABI content blocks goes through it,
// so that what one accepts the others do.
func HostContent(blocks []sdk.Content) (host.Contents, error) {
	cs := make(host.Contents, 0, len(blocks))
	for i, b := range blocks {
		switch b.Type {
		case "text":
			if b.Data != "" || b.MimeType != "" {
				return nil, fmt.Errorf("content[%d]: a text block has image fields", i)
			}
			cs = append(cs, host.TextContent{Text: b.Text})
		case "image":
			if err := checkImage(b.MimeType, b.Data); err != nil {
				return nil, fmt.Errorf("content[%d]: %w", i, err)
			}
			cs = append(cs, host.ImageContent{Data: b.Data, MimeType: b.MimeType})
		default:
			return nil, fmt.Errorf("content[%d]: type %q is not text or image", i, b.Type)
		}
	}
	return cs, nil
}

// callErr makes a failed plugin call the error a tool result shows: the
// plugin's own message when it reported one (as a thrown Error's message
// in pi), otherwise the whole account (timeout, abort, crash).
func callErr(err error) error {
	var ce *runtime.CallError
	if errors.As(err, &ce) && errors.Is(err, runtime.ErrPlugin) {
		return &pluginError{ce}
	}
	return err
}

// pluginError shows a plugin's own message and unwraps to the CallError.
type pluginError struct{ ce *runtime.CallError }

func (e *pluginError) Error() string { return e.ce.Message }
func (e *pluginError) Unwrap() error { return e.ce }
