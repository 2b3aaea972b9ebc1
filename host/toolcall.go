package host

import (
	"encoding/json"
	"fmt"
	"sync"
)

// Default texts of immediate results (docs/loop.md 12).
const blockedText = "Tool execution was blocked"

// prepared is a call ready to execute.
type prepared struct {
	msg  *AssistantMessage
	call ToolCall
	tool Tool
	args json.RawMessage // prepared, coerced, validated
}

// prepare looks the tool up, prepares and validates the arguments and runs
// the before-hooks (docs/loop.md 6.4). It returns either a prepared call or an
// immediate error outcome.
func (r *run) prepare(msg *AssistantMessage, call ToolCall) (*prepared, *finalized) {
	tool := findTool(r.c.Tools, call.Name)
	if tool == nil {
		return nil, immediate(call, fmt.Sprintf("Tool %s not found", call.Name))
	}
	args, err := safely("tool "+call.Name, func() (json.RawMessage, error) {
		return prepareArguments(tool, call)
	})
	if err != nil {
		return nil, immediate(call, err.Error())
	}
	hc := &ToolCallContext{AssistantMessage: msg, ToolCall: call, Args: args, Context: r.c}
	for _, h := range r.cfg.BeforeToolCall {
		res, err := safely("beforeToolCall hook", func() (*BeforeToolCallResult, error) {
			return h.BeforeToolCall(r.ctx, hc)
		})
		if err != nil {
			return nil, immediate(call, err.Error())
		}
		if res != nil && res.Block {
			reason := res.Reason
			if reason == "" {
				reason = blockedText
			}
			return nil, immediate(call, reason)
		}
	}
	return &prepared{msg: msg, call: call, tool: tool, args: args}, nil
}

// prepareArguments runs the tool's PrepareArguments, if any, and validates
// the outcome against the tool's schema.
func prepareArguments(tool Tool, call ToolCall) (json.RawMessage, error) {
	info := tool.Info()
	args := call.Arguments
	if p, ok := tool.(ArgumentPreparer); ok {
		var err error
		if args, err = p.PrepareArguments(args); err != nil {
			return nil, err
		}
	}
	schema, err := CompileSchema(info.Parameters)
	if err != nil {
		return nil, fmt.Errorf("tool %s has an invalid %w", call.Name, err)
	}
	return schema.ValidateArguments(call.Name, args)
}

// execute runs a prepared call (docs/loop.md 6.5). Updates sent while it runs
// are delivered before it returns; later ones are dropped.
func (r *run) execute(p *prepared) *finalized {
	var mu sync.Mutex
	finished := false
	onUpdate := func(partial any) {
		mu.Lock()
		defer mu.Unlock()
		if finished {
			return
		}
		r.em.emit(ToolExecutionUpdateEvent{ToolCallID: p.call.ID, ToolName: p.call.Name, Args: p.call.Arguments, PartialResult: partial})
	}
	res, err := safely("tool "+p.call.Name, func() (ToolResult, error) {
		return p.tool.Execute(r.ctx, p.call.ID, p.args, onUpdate)
	})
	mu.Lock()
	finished = true
	mu.Unlock()
	if err != nil {
		return immediate(p.call, err.Error())
	}
	return &finalized{call: p.call, result: res}
}

// finalize runs the after-hooks in order, each seeing the result the
// previous one left (docs/loop.md 6.6). A failing hook turns the result into an
// error result, which the later hooks still see.
func (r *run) finalize(p *prepared, fin *finalized) *finalized {
	for _, h := range r.cfg.AfterToolCall {
		hc := &AfterToolCallContext{
			ToolCallContext: ToolCallContext{AssistantMessage: p.msg, ToolCall: p.call, Args: p.args, Context: r.c},
			Result:          fin.result,
			IsError:         fin.isError,
		}
		res, err := safely("afterToolCall hook", func() (*AfterToolCallResult, error) {
			return h.AfterToolCall(r.ctx, hc)
		})
		switch {
		case err != nil:
			fin = immediate(p.call, err.Error())
		case res != nil:
			fin = &finalized{call: p.call, result: mergeAfter(fin.result, res), isError: fin.isError}
			if res.IsError != nil {
				fin.isError = *res.IsError
			}
		}
	}
	return fin
}

// mergeAfter is pi's field-by-field `??` merge: absent (nil) keeps.
func mergeAfter(cur ToolResult, o *AfterToolCallResult) ToolResult {
	out := cur
	if o.Content != nil {
		out.Content = o.Content
	}
	if o.Details != nil && !isJSONNull(o.Details) {
		out.Details = o.Details
	}
	if o.Terminate != nil {
		out.Terminate = *o.Terminate
	}
	return out
}

func isJSONNull(v any) bool {
	raw, ok := v.(json.RawMessage)
	return ok && string(raw) == "null"
}

// immediate is an error outcome: {content:[text], details:{}}, isError.
func immediate(call ToolCall, text string) *finalized {
	return &finalized{call: call, result: ErrorResult(text), isError: true}
}

// ErrorResult is the result pi gives a failed call: the text, empty details.
func ErrorResult(text string) ToolResult {
	return ToolResult{Content: Text(text), Details: map[string]any{}}
}
