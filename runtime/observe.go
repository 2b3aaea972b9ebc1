package runtime

import "context"

// Observer watches a Runtime's plugin calls and the instances made for
// them, for tracing and metrics (host/telemetry implements it). Nil, the
// default, costs a nil check per call.
//
//  1. Begin is called when a step begins, with the context the step was
//     given: the caller's for a call; for an instantiation, the call's (an
//     instance made on demand) or the pool's background context (an
//     instance made ahead of demand).
//  2. The step runs under the context Begin returns.
//  3. The returned function is called exactly once, when the step ends.
//
// An Observer must be safe for concurrent use, must not block, and must
// return ctx or a context derived from it.
type Observer interface {
	Begin(ctx context.Context, s Step) (context.Context, func(StepEnd))
}

// Step is a call of a plugin's export or the making of an instance.
type Step struct {
	Kind       string // "call" or "instantiate"
	Plugin     string // the plugin's name
	SHA256     string // hex sha256 of the module
	Export     string // the export called ("call")
	InputBytes int    // the input's size ("call")
}

// StepEnd is how a step ended.
type StepEnd struct {
	OutputBytes int   // the output's size ("call")
	Err         error // nil on success; a *CallError otherwise
}

func noStepEnd(StepEnd) {}

// observe begins a step of p with the Runtime's Observer, if any.
func (p *Plugin) observe(ctx context.Context, kind, export string, input int) (context.Context, func(StepEnd)) {
	o := p.r.opts.Observer
	if o == nil {
		return ctx, noStepEnd
	}
	return o.Begin(ctx, Step{Kind: kind, Plugin: p.name, SHA256: p.m.SHA256(), Export: export, InputBytes: input})
}
