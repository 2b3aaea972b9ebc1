package host

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ToolRunner runs tool calls through the five stages of docs/loop.md 6, the
// same code whether the loop or another door (an MCP server) calls:
//
//  1. Prepare: find the tool, run its PrepareArguments, validate and
//     coerce the arguments against its schema;
//  2. the before hooks (rewrite → re-validate → gates; ask; fallbacks);
//  3. Execute the tool;
//  4. Finalize: the after hooks, each seeing the previous one's result;
//  5. the outcome, which the caller turns into its result (the loop: a
//     tool_execution_end event and a toolResult message).
//
// Prepare covers stages 1–2, so that the loop can announce and prepare a
// whole batch before executing it; Run does all five. A ToolRunner holds no
// state of its own between calls and may be used by many goroutines.
type ToolRunner struct {
	Tools          []Tool
	BeforeToolCall []BeforeToolCallHook
	AfterToolCall  []AfterToolCallHook
	// Approver answers the hooks' questions; nil leaves them to each
	// hook's OnAsk. ApprovalTimeout bounds an answer (zero:
	// DefaultApprovalTimeout).
	Approver        Approver
	ApprovalTimeout time.Duration
	// OnHook, if set, is told every hook's decision (audit logs). It must
	// be safe for concurrent use and must not block.
	OnHook func(HookReport)
	// Observer, if set, is told when each call and each hook begins and
	// ends. With it, Execute and Finalize run under the context the
	// call's Observer.Begin returned in Prepare, derived from Prepare's
	// ctx: they must be given that ctx, or one derived from it.
	Observer Observer
	// MaxArgumentBytes caps one call's arguments, as sent and as
	// validated (0: DefaultMaxArgumentBytes; negative: no cap).
	MaxArgumentBytes int
}

// PreparedCall is a call that passed stages 1–2 and may execute.
type PreparedCall struct {
	Call ToolCall // as the model sent it
	Tool Tool
	// Args are what the tool will run with: validated and coerced, and
	// rewritten (then validated again) by before hooks.
	Args json.RawMessage

	msg *AssistantMessage
	c   *Context
	// traced is the call's context from the Observer, end ends its stage
	// (nil without an Observer).
	traced context.Context
	end    func(StageEnd)
}

// CallOutcome is a finished call: its result and whether it is an error.
type CallOutcome struct {
	Call    ToolCall
	Result  ToolResult
	IsError bool
}

// Run runs one call through all five stages. c and msg are what hooks are
// told (ToolCallContext); either may be nil outside a conversation.
// onUpdate may be nil.
func (tr *ToolRunner) Run(ctx context.Context, c *Context, msg *AssistantMessage, call ToolCall, onUpdate UpdateFunc) *CallOutcome {
	p, out := tr.Prepare(ctx, c, msg, call)
	if out != nil {
		return out
	}
	return tr.Finalize(ctx, p, tr.Execute(ctx, p, onUpdate))
}

// Prepare is stages 1–2: it returns either a call ready to execute or an
// immediate error outcome (not found, invalid, blocked, declined).
func (tr *ToolRunner) Prepare(ctx context.Context, c *Context, msg *AssistantMessage, call ToolCall) (*PreparedCall, *CallOutcome) {
	ctx, end := observe(tr.Observer, ctx, Stage{Kind: StageTool, ToolCallID: call.ID, Tool: call.Name, Args: call.Arguments})
	p, out, why := tr.prepare(ctx, c, msg, call)
	if out != nil {
		end(StageEnd{Outcome: why, Result: &out.Result})
		return nil, out
	}
	if tr.Observer != nil {
		p.traced, p.end = ctx, end
	}
	return p, nil
}

// prepare is Prepare's work; why is the outcome of an immediate result
// ("invalid" or "blocked").
func (tr *ToolRunner) prepare(ctx context.Context, c *Context, msg *AssistantMessage, call ToolCall) (*PreparedCall, *CallOutcome, string) {
	if text := argumentsTooLarge(tr.MaxArgumentBytes, call.Name, "are", len(call.Arguments)); text != "" {
		return nil, immediate(call, text), "invalid"
	}
	tool := findTool(tr.Tools, call.Name)
	if tool == nil {
		return nil, immediate(call, fmt.Sprintf("Tool %s not found", call.Name)), "invalid"
	}
	args, err := safely("tool "+call.Name, func() (json.RawMessage, error) {
		return prepareArguments(ctx, tool, call)
	})
	if err != nil {
		return nil, immediate(call, err.Error()), "invalid"
	}
	if text := argumentsTooLarge(tr.MaxArgumentBytes, call.Name, "are, once validated,", len(args)); text != "" {
		return nil, immediate(call, text), "invalid"
	}
	p := &PreparedCall{Call: call, Tool: tool, Args: args, msg: msg, c: c}
	if reason, blocked := tr.before(ctx, p); blocked {
		return nil, immediate(call, reason), "blocked"
	}
	return p, nil, ""
}

// prepareArguments runs the tool's PrepareArgumentsContext or
// PrepareArguments, if any, and validates the outcome against the tool's
// schema.
func prepareArguments(ctx context.Context, tool Tool, call ToolCall) (json.RawMessage, error) {
	args := call.Arguments
	var err error
	if p, ok := tool.(ContextArgumentPreparer); ok {
		args, err = p.PrepareArgumentsContext(ctx, args)
	} else if p, ok := tool.(ArgumentPreparer); ok {
		args, err = p.PrepareArguments(args)
	}
	if err != nil {
		return nil, err
	}
	return validate(tool, call.Name, args)
}

func validate(tool Tool, name string, args json.RawMessage) (json.RawMessage, error) {
	schema, err := compileForCall(tool.Info().Parameters) // as pi reads it: lenient (docs/loop.md 6.4.3)
	if err != nil {
		return nil, fmt.Errorf("tool %s has an invalid %w", name, err)
	}
	return schema.ValidateArguments(name, args)
}

// Execute is stage 3. A returned error or a panic becomes an error result.
// onUpdate may be nil.
func (tr *ToolRunner) Execute(ctx context.Context, p *PreparedCall, onUpdate UpdateFunc) *CallOutcome {
	if onUpdate == nil {
		onUpdate = func(any) {}
	}
	if p.traced != nil {
		ctx = p.traced
	}
	res, err := safely("tool "+p.Call.Name, func() (ToolResult, error) {
		return p.Tool.Execute(ctx, p.Call.ID, p.Args, onUpdate)
	})
	if err != nil {
		return immediate(p.Call, err.Error())
	}
	if len(res.Extra) > 0 {
		if _, err := extraMembers(res.Extra); err != nil {
			return immediate(p.Call, fmt.Sprintf("tool %s: %v", p.Call.Name, err))
		}
	}
	return &CallOutcome{Call: p.Call, Result: res}
}

// Finalize is stage 4: the after hooks run in order, each seeing the result
// the previous one left (docs/loop.md 6.6). A failing hook turns the result into
// an error result, which the later hooks still see, unless its OnError (or
// OnTimeout) allows.
func (tr *ToolRunner) Finalize(ctx context.Context, p *PreparedCall, out *CallOutcome) *CallOutcome {
	if p.traced != nil {
		ctx = p.traced
		defer func() { p.end(StageEnd{Outcome: callOutcome(out), Result: &out.Result}) }()
	}
	for _, h := range tr.AfterToolCall {
		o := optionsOf(h)
		if !o.applies(p.Call.Name) {
			continue
		}
		hc := &AfterToolCallContext{
			ToolCallContext: ToolCallContext{AssistantMessage: p.msg, ToolCall: p.Call, Args: p.Args, Context: p.c},
			Result:          out.Result,
			IsError:         out.IsError,
		}
		hctx, end := observe(tr.Observer, ctx, Stage{Kind: StageHook, ToolCallID: p.Call.ID, Tool: p.Call.Name, HookKind: "afterToolCall", Hook: o.Name})
		res, err := safely(o.label("afterToolCall"), func() (*AfterToolCallResult, error) {
			return h.AfterToolCall(hctx, hc)
		})
		rep := HookReport{ToolCallID: p.Call.ID, Tool: p.Call.Name, Kind: "afterToolCall", Hook: o.Name, Decision: "keep"}
		switch {
		case err != nil:
			rep.Decision, rep.Reason, rep.Fallback = "error", err.Error(), fallbackFor(ctx, &o, err)
			if !rep.Fallback.allows() {
				out = immediate(p.Call, err.Error())
			}
		case res != nil:
			if res.Content != nil || res.Details != nil || res.IsError != nil || res.Terminate != nil {
				rep.Decision = "modify"
			}
			next := &CallOutcome{Call: p.Call, Result: mergeAfter(out.Result, res), IsError: out.IsError}
			if res.IsError != nil {
				next.IsError = *res.IsError
			}
			out = next
		}
		tr.report(rep)
		end(StageEnd{Outcome: outcome(err), Report: &rep})
	}
	return out
}

// callOutcome is a finished call's outcome for its Observer.
func callOutcome(out *CallOutcome) string {
	if out.IsError {
		return "error"
	}
	return "ok"
}

func (tr *ToolRunner) report(r HookReport) {
	if tr.OnHook != nil {
		tr.OnHook(r)
	}
}

// mergeAfter is pi's field-by-field `??` merge: absent (nil) keeps. The
// result is rebuilt of its three fields, as pi rebuilds it: the tool's
// extra members are dropped, whatever the hook answered.
func mergeAfter(cur ToolResult, o *AfterToolCallResult) ToolResult {
	out := cur
	out.Extra = nil
	if o.Content != nil {
		out.Content = o.Content
	}
	if o.Details != nil && !isJSONNull(o.Details) {
		out.Details = o.Details
	}
	if o.Terminate != nil {
		out.Terminate = Bool(*o.Terminate)
	}
	return out
}

func isJSONNull(v any) bool {
	raw, ok := v.(json.RawMessage)
	return ok && string(raw) == "null"
}

// immediate is an error outcome: {content:[text], details:{}}, isError.
func immediate(call ToolCall, text string) *CallOutcome {
	return &CallOutcome{Call: call, Result: ErrorResult(text), IsError: true}
}

// ErrorResult is the result pi gives a failed call: the text, empty details.
func ErrorResult(text string) ToolResult {
	return ToolResult{Content: Text(text), Details: map[string]any{}}
}
