package telemetry

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmagent/wasmagent/runtime"
)

// runtimeObserver turns plugin calls and instantiations into spans and
// metrics.
type runtimeObserver Telemetry

var _ runtime.Observer = (*runtimeObserver)(nil)

// inCall marks the context of a plugin call: an instance made under it is
// made on demand, not ahead of it by the pool.
type inCall struct{}

// Begin starts a step's span (runtime.Observer). An instance made ahead of
// demand, outside any call, is counted but gets no span: it would be a
// trace of its own for every pooled instance.
func (o *runtimeObserver) Begin(ctx context.Context, s runtime.Step) (context.Context, func(runtime.StepEnd)) {
	t := (*Telemetry)(o)
	start := time.Now()
	onDemand := ctx.Value(inCall{}) != nil
	if s.Kind == "call" {
		ctx = context.WithValue(ctx, inCall{}, true)
	}
	var span trace.Span
	if t.tracing && (s.Kind == "call" || onDemand) {
		ctx, span = t.tracer.Start(ctx, "wasmagent.plugin."+s.Kind)
		if !span.IsRecording() {
			span = nil
		} else {
			span.SetAttributes(attribute.String(attrPlugin, s.Plugin), attribute.String(attrSHA256, s.SHA256))
			if s.Kind == "call" {
				span.SetAttributes(attribute.String(attrExport, s.Export), attribute.Int(attrInputBytes, s.InputBytes))
			}
		}
	}
	return ctx, func(e runtime.StepEnd) {
		class := errorClass(e.Err)
		if t.metered {
			t.recordStep(s, class, onDemand, time.Since(start).Seconds())
		}
		if span != nil {
			span.SetAttributes(attribute.String(attrOutcome, outcomeOf(class)))
			if s.Kind == "call" {
				span.SetAttributes(attribute.Int(attrOutputBytes, e.OutputBytes))
			}
			if class != "" {
				span.SetAttributes(attribute.String(attrErrorClass, class))
				span.SetStatus(codes.Error, class)
			}
			span.End()
		}
	}
}

func (t *Telemetry) recordStep(s runtime.Step, class string, onDemand bool, seconds float64) {
	ctx := context.Background()
	plugin, outcome := attribute.String(attrPlugin, s.Plugin), attribute.String(attrOutcome, outcomeOf(class))
	if s.Kind == "call" {
		set := metric.WithAttributes(plugin, attribute.String(attrExport, s.Export), outcome)
		t.m.pluginCalls.Add(ctx, 1, set)
		t.m.pluginDuration.Record(ctx, seconds, set)
		return
	}
	set := metric.WithAttributes(plugin, outcome, attribute.Bool(attrOnDemand, onDemand))
	t.m.instantiations.Add(ctx, 1, set)
	t.m.instantiateDuration.Record(ctx, seconds, set)
}

func outcomeOf(class string) string {
	if class == "" {
		return "ok"
	}
	return "error"
}

// errorClasses name a failed call's cause without its text, which may
// carry what the plugin read or wrote.
var errorClasses = [...]struct {
	err  error
	name string
}{
	{runtime.ErrAborted, "aborted"}, {runtime.ErrDeadline, "deadline"}, {runtime.ErrTimeout, "timeout"},
	{runtime.ErrCap, "cap"}, {runtime.ErrCallDepth, "call_depth"}, {runtime.ErrTrap, "trap"},
	{runtime.ErrPlugin, "plugin"}, {runtime.ErrHost, "host"},
}

// errorClass is err's class: "" for nil, "other" for an unknown cause.
func errorClass(err error) string {
	if err == nil {
		return ""
	}
	for _, c := range errorClasses {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	return "other"
}
