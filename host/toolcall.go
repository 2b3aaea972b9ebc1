package host

import (
	"sync"
)

// runner is the run's ToolRunner: the loop and other doors share its stages.
func (r *run) runner() *ToolRunner {
	return &ToolRunner{
		Tools:            r.c.Tools,
		BeforeToolCall:   r.cfg.BeforeToolCall,
		AfterToolCall:    r.cfg.AfterToolCall,
		Approver:         r.cfg.Approver,
		ApprovalTimeout:  r.cfg.ApprovalTimeout,
		OnHook:           r.cfg.OnHook,
		Observer:         r.cfg.Observer,
		MaxArgumentBytes: r.cfg.MaxArgumentBytes,
	}
}

// prepare is stages 1–2 of a call of msg (docs/loop.md 6.4), after the cap on
// the calls of one message.
func (r *run) prepare(msg *AssistantMessage, call ToolCall) (*PreparedCall, *CallOutcome) {
	if text := r.overLimit(msg); text != "" {
		return nil, immediate(call, text)
	}
	return r.tools.Prepare(r.ctx, r.c, msg, call)
}

// execute runs a prepared call (docs/loop.md 6.5). An update is queued for
// delivery and the tool goes on at once; the call's result waits until its
// updates have been delivered, as pi awaits them before finalizing. Updates
// sent after Execute returns are dropped. If the sink failed on one of the
// updates, the later ones were still delivered (as pi's onUpdate does) and
// execute returns the first failure, which ends the run.
func (r *run) execute(p *PreparedCall) (*CallOutcome, error) {
	var mu sync.Mutex
	finished := false
	var delivered []*pending
	onUpdate := func(partial any) {
		mu.Lock()
		defer mu.Unlock()
		if finished {
			return
		}
		delivered = append(delivered, r.em.post(ToolExecutionUpdateEvent{ToolCallID: p.Call.ID, ToolName: p.Call.Name, Args: p.Call.Arguments, PartialResult: partial}))
	}
	out := r.tools.Execute(r.ctx, p, onUpdate)
	mu.Lock()
	finished = true
	mu.Unlock()
	var failed error
	for _, d := range delivered {
		if err := d.wait(); err != nil && failed == nil {
			failed = err
		}
	}
	return out, failed
}

// finalize runs the after hooks (docs/loop.md 6.6).
func (r *run) finalize(p *PreparedCall, out *CallOutcome) *CallOutcome {
	return r.tools.Finalize(r.ctx, p, out)
}
