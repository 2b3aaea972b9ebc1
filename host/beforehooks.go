package host

import (
	"context"
	"errors"
	"fmt"
)

// Default texts of immediate results (docs/loop.md 12).
const blockedText = "Tool execution was blocked"

// before is stage 2 (docs/hooks.md): the hooks that are not gates run in
// their order, each seeing the arguments the previous one left; then the
// gates run in theirs on the final arguments. The first block (or declined
// question, or failure its fallback does not allow) wins and is returned as
// the reason of the immediate error result.
func (tr *ToolRunner) before(ctx context.Context, p *PreparedCall) (reason string, blocked bool) {
	for _, gates := range []bool{false, true} {
		for _, h := range tr.BeforeToolCall {
			o := optionsOf(h)
			if o.Gate != gates || !o.applies(p.Call.Name) {
				continue
			}
			if reason, blocked := tr.beforeHook(ctx, p, h, &o); blocked {
				return reason, true
			}
		}
	}
	return "", false
}

// beforeHook runs one before hook and applies its answer to p.
func (tr *ToolRunner) beforeHook(ctx context.Context, p *PreparedCall, h BeforeToolCallHook, o *HookOptions) (string, bool) {
	hc := &ToolCallContext{AssistantMessage: p.msg, ToolCall: p.Call, Args: p.Args, Context: p.c}
	hctx, end := observe(tr.Observer, ctx, Stage{Kind: StageHook, ToolCallID: p.Call.ID, Tool: p.Call.Name, HookKind: "beforeToolCall", Hook: o.Name, Gate: o.Gate})
	res, err := safely(o.label("beforeToolCall"), func() (*BeforeToolCallResult, error) {
		return h.BeforeToolCall(hctx, hc)
	})
	rep := HookReport{ToolCallID: p.Call.ID, Tool: p.Call.Name, Kind: "beforeToolCall", Hook: o.Name, Gate: o.Gate, Decision: "allow"}
	reason, blocked := tr.decide(ctx, p, o, res, err, &rep)
	if blocked {
		rep.Decision, rep.Reason = "block", reason
		if err != nil {
			rep.Decision = "error"
		}
	}
	tr.report(rep)
	end(StageEnd{Outcome: outcome(err), Report: &rep})
	return reason, blocked
}

// decide turns a before hook's answer into the call's fate, filling rep.
func (tr *ToolRunner) decide(ctx context.Context, p *PreparedCall, o *HookOptions, res *BeforeToolCallResult, err error, rep *HookReport) (string, bool) {
	if err != nil {
		rep.Fallback = fallbackFor(ctx, o, err)
		if rep.Fallback.allows() {
			rep.Decision, rep.Reason = "error", err.Error()
			return "", false
		}
		return err.Error(), true
	}
	if res == nil {
		return "", false
	}
	if res.Block {
		if res.Reason == "" {
			return blockedText, true
		}
		return res.Reason, true
	}
	if o.Gate && res.Args != nil {
		return fmt.Sprintf("%s is a gate and may not rewrite the arguments", o.label("beforeToolCall")), true
	}
	if res.Ask != "" {
		q := Question{Hook: o.Name, ToolCall: p.Call, Args: p.Args, Text: res.Ask}
		if q.Hook == "" {
			q.Hook = "a beforeToolCall hook"
		}
		ok, answer := approve(ctx, tr.Approver, tr.ApprovalTimeout, o.OnAsk, q)
		rep.Question, rep.Answer = res.Ask, answer
		if !ok {
			return declined(q, answer), true
		}
	}
	if res.Args != nil {
		args, err := validate(p.Tool, p.Call.Name, res.Args)
		if err != nil {
			return fmt.Sprintf("The arguments rewritten by %s are not valid.\n%v", o.label("beforeToolCall"), err), true
		}
		rep.Decision, rep.ArgsBefore, rep.ArgsAfter = "rewrite", p.Args, args
		p.Args = args
	}
	return "", false
}

// fallbackFor is the fallback that decides a hook's failure: OnTimeout for
// a deadline while the run goes on, OnError for the rest. A failure after
// the run was cancelled always blocks.
func fallbackFor(ctx context.Context, o *HookOptions, err error) Fallback {
	switch {
	case ctx.Err() != nil:
		return FallbackBlock
	case errors.Is(err, context.DeadlineExceeded):
		return orBlock(o.OnTimeout)
	}
	return orBlock(o.OnError)
}
