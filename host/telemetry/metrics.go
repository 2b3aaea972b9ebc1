package telemetry

import (
	"go.opentelemetry.io/otel/metric"
)

// instruments are the metrics (docs/telemetry.md has the table).
type instruments struct {
	runs, turns, modelRequests, tokens, toolCalls, hookCalls, pluginCalls, instantiations metric.Int64Counter

	runDuration, modelDuration, toolDuration, hookDuration, pluginDuration, instantiateDuration metric.Float64Histogram

	running, waiting, poolReady metric.Int64ObservableGauge
	dropped, exportFailed       metric.Int64ObservableCounter
}

func (t *Telemetry) instrument(m metric.Meter) error {
	var errs errorList
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs.add(err)
		return c
	}
	seconds := func(name, desc string) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc), metric.WithExplicitBucketBoundaries(secondBuckets...))
		errs.add(err)
		return h
	}
	gauge := func(name, unit, desc string) metric.Int64ObservableGauge {
		g, err := m.Int64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs.add(err)
		return g
	}
	observedCounter := func(name, unit, desc string) metric.Int64ObservableCounter {
		c, err := m.Int64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs.add(err)
		return c
	}
	i := &t.m
	i.runs = counter("wasmagent.runs", "{run}", "Runs of the agent loop, by outcome.")
	i.turns = counter("wasmagent.turns", "{turn}", "Turns: a model request and its tool calls, by outcome.")
	i.modelRequests = counter("wasmagent.model.requests", "{request}", "Model requests, by model and stop reason.")
	i.tokens = counter("wasmagent.model.tokens", "{token}", "Tokens the model reported, by model and type (input, output, cache_read, cache_write).")
	i.toolCalls = counter("wasmagent.tool.calls", "{call}", "Tool calls, by tool and outcome (ok, error, blocked, invalid).")
	i.hookCalls = counter("wasmagent.hook.calls", "{call}", "Hook calls, by hook, kind and decision.")
	i.pluginCalls = counter("wasmagent.plugin.calls", "{call}", "Calls of Wasm plugin exports, by plugin, export and outcome.")
	i.instantiations = counter("wasmagent.plugin.instantiations", "{instance}", "Wasm instances made, by plugin and outcome.")
	i.runDuration = seconds("wasmagent.run.duration", "Duration of runs.")
	i.modelDuration = seconds("wasmagent.model.duration", "Duration of model requests, to the final message.")
	i.toolDuration = seconds("wasmagent.tool.duration", "Duration of tool calls, all five stages.")
	i.hookDuration = seconds("wasmagent.hook.duration", "Duration of hook calls.")
	i.pluginDuration = seconds("wasmagent.plugin.call.duration", "Duration of plugin calls, waiting for a slot included.")
	i.instantiateDuration = seconds("wasmagent.plugin.instantiate.duration", "Duration of making a Wasm instance.")
	i.running = gauge("wasmagent.runtime.calls.running", "{call}", "Plugin calls running now, all plugins together.")
	i.waiting = gauge("wasmagent.runtime.calls.waiting", "{call}", "Plugin calls waiting for a free slot.")
	i.poolReady = gauge("wasmagent.plugin.pool.ready", "{instance}", "Instances ready in a plugin's pool.")
	i.dropped = observedCounter("wasmagent.telemetry.spans.dropped", "{span}", "Spans dropped because the export queue was full.")
	i.exportFailed = observedCounter("wasmagent.telemetry.spans.export_failed", "{span}", "Spans the exporter failed to send.")
	if err := errs.err(); err != nil {
		return err
	}
	_, err := m.RegisterCallback(t.observeGauges, i.running, i.waiting, i.poolReady, i.dropped, i.exportFailed)
	return err
}

// secondBuckets are the histograms' bounds, in seconds: from a native
// hook's half millisecond to a long model request (the SDK's default
// bounds are for milliseconds).
var secondBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// errorList gathers the first error of a series of calls.
type errorList struct{ first error }

func (l *errorList) add(err error) {
	if l.first == nil {
		l.first = err
	}
}

func (l *errorList) err() error { return l.first }
