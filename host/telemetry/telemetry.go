package telemetry

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/runtime"
)

// Options are what the caller adds to [telemetry].
type Options struct {
	// Headers are sent with every OTLP export (config.File.TelemetryHeaders).
	Headers http.Header
	// Prometheus keeps metrics for MetricsHandler even when [telemetry] is
	// off (serve's /metrics).
	Prometheus bool
	// Version is the service.version resource attribute.
	Version string
}

// Telemetry is the OpenTelemetry wiring of one process: its tracer and
// meter providers, and the observers that feed them. The zero of
// [telemetry] (off) makes one whose observers are nil, so that the host
// and the runtime pay a nil check per stage and nothing else.
//
//  1. New, before the Runtime is made (it takes RuntimeObserver);
//  2. RuntimeObserver into runtime.Options, HostObserver into
//     host.AgentOptions (or Config, or a ToolRunner);
//  3. NameTool for each tool, WatchRuntime and WatchPool for the gauges;
//  4. Shutdown on exit, with a deadline: it flushes what it can.
type Telemetry struct {
	cfg     config.Telemetry
	tracing bool // spans are made (an exporter is set)
	metered bool // metrics are recorded
	tracer  trace.Tracer
	tp      *sdktrace.TracerProvider
	mp      *sdkmetric.MeterProvider
	queue   *queue
	reg     *prometheus.Registry
	m       instruments

	mu      sync.Mutex
	tools   map[string]pluginID // by tool name
	runtime func() runtime.Stats
	pools   map[string]func() int // by plugin name
	closers []func(context.Context) error
}

// pluginID names the plugin that serves a tool.
type pluginID struct{ name, sha256 string }

// New sets telemetry up from [telemetry] (already checked by config.Load).
// It starts no network connection: exporters connect when they first
// export.
func New(cfg config.Telemetry, opts Options) (*Telemetry, error) {
	var exp sdktrace.SpanExporter
	var reader sdkmetric.Reader
	var closers []func(context.Context) error
	if cfg.Enabled() {
		var err error
		if exp, reader, closers, err = exporters(cfg, opts.Headers); err != nil {
			return nil, err
		}
	}
	return build(cfg, opts, exp, reader, closers)
}

// build wires the providers to the given span exporter and metric reader
// (either may be nil); tests give the SDK's in-memory ones.
func build(cfg config.Telemetry, opts Options, exp sdktrace.SpanExporter, reader sdkmetric.Reader, closers []func(context.Context) error) (*Telemetry, error) {
	t := &Telemetry{cfg: cfg, tools: map[string]pluginID{}, pools: map[string]func() int{}, closers: closers}
	if t.cfg.MaxFieldBytes == 0 {
		t.cfg.MaxFieldBytes = 4096
	}
	res := resource.NewSchemaless(semconv.ServiceName(orDefault(cfg.ServiceName, "wasmagent")), semconv.ServiceVersion(opts.Version))
	var readers []sdkmetric.Option
	if reader != nil {
		readers = append(readers, sdkmetric.WithReader(reader))
	}
	if opts.Prometheus {
		t.reg = prometheus.NewRegistry()
		pe, err := otelprom.New(otelprom.WithRegisterer(t.reg))
		if err != nil {
			return nil, err
		}
		readers = append(readers, sdkmetric.WithReader(pe))
	}
	if len(readers) > 0 {
		t.metered = true
		t.mp = sdkmetric.NewMeterProvider(append(readers, sdkmetric.WithResource(res))...)
		if err := t.instrument(t.mp.Meter(scope)); err != nil {
			return nil, err
		}
	}
	if exp != nil {
		t.tracing = true
		t.queue = newQueue(exp, orDefaultInt(cfg.QueueSize, 2048))
		sampler := sdktrace.ParentBased(sdktrace.TraceIDRatioBased(1))
		if cfg.Sampling != nil {
			sampler = sdktrace.ParentBased(sdktrace.TraceIDRatioBased(*cfg.Sampling))
		}
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(t.queue), sdktrace.WithSampler(sampler), sdktrace.WithResource(res))
		t.tracer = t.tp.Tracer(scope)
	}
	return t, nil
}

// scope is the instrumentation scope of every span and metric.
const scope = "github.com/wasmagent/wasmagent"

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func orDefaultInt(n, d int) int {
	if n == 0 {
		return d
	}
	return n
}

// on reports whether anything is observed.
func (t *Telemetry) on() bool { return t != nil && (t.tracing || t.metered) }

// HostObserver is the observer of runs and tool calls: nil when telemetry
// is off.
func (t *Telemetry) HostObserver() host.Observer {
	if !t.on() {
		return nil
	}
	return (*hostObserver)(t)
}

// RuntimeObserver is the observer of plugin calls and instances: nil when
// telemetry is off.
func (t *Telemetry) RuntimeObserver() runtime.Observer {
	if !t.on() {
		return nil
	}
	return (*runtimeObserver)(t)
}

// NameTool records which plugin serves a tool, for its spans.
func (t *Telemetry) NameTool(tool, plugin, sha256 string) {
	if !t.on() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tools[tool] = pluginID{plugin, sha256}
}

func (t *Telemetry) toolPlugin(tool string) (pluginID, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.tools[tool]
	return p, ok
}

// WatchRuntime reports the runtime's calls running and waiting as gauges
// (runtime.Runtime.Stats).
func (t *Telemetry) WatchRuntime(stats func() runtime.Stats) {
	if !t.on() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.runtime = stats
}

// WatchPool reports a plugin's instances ready in its pool as a gauge
// (runtime.Plugin.Pooled).
func (t *Telemetry) WatchPool(plugin string, ready func() int) {
	if !t.on() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pools[plugin] = ready
}

// observeGauges is the callback of the gauges.
func (t *Telemetry) observeGauges(_ context.Context, o metric.Observer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.runtime != nil {
		s := t.runtime()
		o.ObserveInt64(t.m.running, int64(s.Running))
		o.ObserveInt64(t.m.waiting, int64(s.Waiting))
	}
	for name, ready := range t.pools {
		o.ObserveInt64(t.m.poolReady, int64(ready()), metric.WithAttributes(attribute.String(attrPlugin, name)))
	}
	if t.queue != nil {
		o.ObserveInt64(t.m.dropped, t.queue.dropped.Load())
		o.ObserveInt64(t.m.exportFailed, t.queue.failed.Load())
	}
	return nil
}

// MetricsHandler serves the metrics in the Prometheus text format; it
// answers 404 unless Options.Prometheus was set.
func (t *Telemetry) MetricsHandler() http.Handler {
	if t == nil || t.reg == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(t.reg, promhttp.HandlerOpts{})
}

// Shutdown exports what is left and stops, giving up when ctx ends: a slow
// or dead collector delays the exit by at most ctx's deadline.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	if t.tp != nil {
		errs = append(errs, t.tp.Shutdown(ctx))
	}
	if t.mp != nil {
		errs = append(errs, t.mp.Shutdown(ctx))
	}
	for _, c := range t.closers {
		errs = append(errs, c(ctx))
	}
	return errors.Join(errs...)
}
