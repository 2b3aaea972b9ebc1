package session

import (
	"context"

	"github.com/wasmagent/wasmagent/host"
)

// HookDecisionEvent says what one hook decided about one tool call: the
// session's own event, not one of pi's, sent only when
// [Options.HookEvents] asks for it (serve's event stream does; pi's RPC
// clients do not know it). It comes between the call's
// tool_execution_start and tool_execution_end. Arguments never go into
// it: the audit log ([audit] in agent.toml) is where they may be kept.
type HookDecisionEvent struct {
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	Kind       string `json:"kind"` // "beforeToolCall" or "afterToolCall"
	Hook       string `json:"hook"`
	Gate       bool   `json:"gate,omitempty"`
	// Decision is "allow", "block", "rewrite" or "error" for a before
	// hook; "keep", "modify" or "error" for an after hook.
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
	Fallback string `json:"fallback,omitempty"`
	Question string `json:"question,omitempty"`
	Answer   string `json:"answer,omitempty"`
}

// EventType implements Event.
func (HookDecisionEvent) EventType() string { return "hook_decision" }

// hookDecision makes the event of a hook's report.
func hookDecision(r host.HookReport) HookDecisionEvent {
	return HookDecisionEvent{
		ToolCallID: r.ToolCallID, ToolName: r.Tool, Kind: r.Kind, Hook: r.Hook, Gate: r.Gate,
		Decision: r.Decision, Reason: r.Reason, Fallback: string(r.Fallback),
		Question: r.Question, Answer: r.Answer,
	}
}

// reportHooks chains the session's hook_decision events after the
// Agent's own OnHook (the audit log), when opts ask for them.
func (s *Session) reportHooks(opts *Options) {
	if !opts.HookEvents {
		return
	}
	prev := opts.Agent.OnHook
	opts.Agent.OnHook = func(r host.HookReport) {
		if prev != nil {
			prev(r)
		}
		// A listener's error here has no run to end: the call goes on,
		// as it does when the audit log cannot be written.
		_ = s.emit(context.Background(), hookDecision(r))
	}
}
