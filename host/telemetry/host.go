package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmagent/wasmagent/host"
)

// hostObserver turns the host's stages into spans and metrics.
type hostObserver Telemetry

var _ host.Observer = (*hostObserver)(nil)

// spanNames are the spans' names, one per stage.
var spanNames = map[host.StageKind]string{
	host.StageRun:   "wasmagent.run",
	host.StageTurn:  "wasmagent.turn",
	host.StageModel: "wasmagent.model",
	host.StageTool:  "wasmagent.tool",
	host.StageHook:  "wasmagent.hook",
}

// Begin starts s's span, a child of ctx's (host.Observer).
func (o *hostObserver) Begin(ctx context.Context, s host.Stage) (context.Context, func(host.StageEnd)) {
	t := (*Telemetry)(o)
	start := time.Now()
	var span trace.Span
	if t.tracing {
		ctx, span = t.tracer.Start(ctx, spanNames[s.Kind])
		if !span.IsRecording() {
			span = nil
		} else {
			span.SetAttributes(t.beginAttrs(s)...)
		}
	}
	return ctx, func(e host.StageEnd) {
		if t.metered {
			t.recordStage(s, e, time.Since(start).Seconds())
		}
		if span != nil {
			span.SetAttributes(t.endAttrs(s, e)...)
			if failed(e.Outcome) {
				span.SetStatus(codes.Error, e.Outcome)
			}
			span.End()
		}
	}
}

// beginAttrs are what a span knows from its start.
func (t *Telemetry) beginAttrs(s host.Stage) []attribute.KeyValue {
	switch s.Kind {
	case host.StageModel:
		return []attribute.KeyValue{attribute.String(attrOperation, "chat"), attribute.String(attrProvider, s.Model.Provider), attribute.String(attrModel, s.Model.ID)}
	case host.StageTool:
		a := []attribute.KeyValue{attribute.String(attrTool, s.Tool), attribute.String(attrToolCallID, s.ToolCallID), attribute.Int(attrArgsBytes, len(s.Args))}
		if p, ok := t.toolPlugin(s.Tool); ok {
			a = append(a, attribute.String(attrPlugin, p.name), attribute.String(attrSHA256, p.sha256))
		}
		if t.cfg.Arguments {
			a = append(a, attribute.String(attrArgs, cut(string(host.ArgumentsJSON(s.Args)), t.cfg.MaxFieldBytes)))
		}
		return a
	case host.StageHook:
		return []attribute.KeyValue{attribute.String(attrHookKind, s.HookKind), attribute.String(attrHook, s.Hook), attribute.Bool(attrGate, s.Gate),
			attribute.String(attrTool, s.Tool), attribute.String(attrToolCallID, s.ToolCallID)}
	}
	return nil
}

// endAttrs are what a span learns at its end.
func (t *Telemetry) endAttrs(s host.Stage, e host.StageEnd) []attribute.KeyValue {
	a := []attribute.KeyValue{attribute.String(attrOutcome, e.Outcome)}
	switch {
	case s.Kind == host.StageModel && e.Message != nil:
		u := e.Message.Usage
		a = append(a, attribute.StringSlice(attrFinishReasons, []string{string(e.Message.StopReason)}),
			attribute.Int(attrInputTokens, u.Input), attribute.Int(attrOutputTokens, u.Output),
			attribute.Int(attrCacheRead, u.CacheRead), attribute.Int(attrCacheWrite, u.CacheWrite))
	case s.Kind == host.StageTool && e.Result != nil:
		text := e.Result.Content.TextOf()
		a = append(a, attribute.Int(attrResultBytes, len(text)), attribute.Bool(attrIsError, e.Outcome != "ok"))
		if t.cfg.Results {
			a = append(a, attribute.String(attrResult, cut(text, t.cfg.MaxFieldBytes)))
		}
	case s.Kind == host.StageHook && e.Report != nil:
		r := e.Report
		a = append(a, attribute.String(attrDecision, r.Decision), attribute.Bool(attrAsked, r.Question != ""))
		if r.Fallback != "" {
			a = append(a, attribute.String(attrFallback, string(r.Fallback)))
		}
		if t.cfg.Results && r.Reason != "" {
			a = append(a, attribute.String(attrReason, cut(r.Reason, t.cfg.MaxFieldBytes)))
		}
		if t.cfg.Arguments && r.ArgsAfter != nil {
			a = append(a, attribute.String(attrRewritten, cut(string(r.ArgsAfter), t.cfg.MaxFieldBytes)))
		}
	}
	return a
}

// recordStage adds a finished stage to the metrics.
func (t *Telemetry) recordStage(s host.Stage, e host.StageEnd, seconds float64) {
	ctx := context.Background()
	outcome := attribute.String(attrOutcome, e.Outcome)
	switch s.Kind {
	case host.StageRun:
		t.m.runs.Add(ctx, 1, metric.WithAttributes(outcome))
		t.m.runDuration.Record(ctx, seconds, metric.WithAttributes(outcome))
	case host.StageTurn:
		t.m.turns.Add(ctx, 1, metric.WithAttributes(outcome))
	case host.StageModel:
		model := attribute.String(attrModel, s.Model.ID)
		t.m.modelRequests.Add(ctx, 1, metric.WithAttributes(model, outcome))
		t.m.modelDuration.Record(ctx, seconds, metric.WithAttributes(model, outcome))
		if e.Message != nil {
			t.recordTokens(ctx, model, e.Message.Usage)
		}
	case host.StageTool:
		set := metric.WithAttributes(attribute.String(attrTool, s.Tool), outcome)
		t.m.toolCalls.Add(ctx, 1, set)
		t.m.toolDuration.Record(ctx, seconds, set)
	case host.StageHook:
		decision := e.Outcome
		if e.Report != nil {
			decision = e.Report.Decision
		}
		set := metric.WithAttributes(attribute.String(attrHook, s.Hook), attribute.String(attrHookKind, s.HookKind), attribute.String(attrDecision, decision))
		t.m.hookCalls.Add(ctx, 1, set)
		t.m.hookDuration.Record(ctx, seconds, set)
	}
}

func (t *Telemetry) recordTokens(ctx context.Context, model attribute.KeyValue, u host.Usage) {
	for _, n := range [...]struct {
		kind  string
		count int
	}{{"input", u.Input}, {"output", u.Output}, {"cache_read", u.CacheRead}, {"cache_write", u.CacheWrite}} {
		if n.count > 0 {
			t.m.tokens.Add(ctx, int64(n.count), metric.WithAttributes(model, attribute.String(attrTokenType, n.kind)))
		}
	}
}

// failed reports whether an outcome marks its span's status as an error:
// a blocked call is the policy working, not a failure.
func failed(outcome string) bool {
	return outcome == "error" || outcome == "aborted" || outcome == "invalid"
}
