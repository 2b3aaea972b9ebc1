// Package telemetry is wasmagent's OpenTelemetry wiring: it implements
// [host.Observer] and [runtime.Observer] with the OpenTelemetry SDK, so
// that runs, turns, model requests, tool calls, hooks and plugin calls
// become spans and metrics, exported as [telemetry] in agent.toml says
// (OTLP over HTTP, or JSON to a file) and, for serve, served to Prometheus
// by [Telemetry.MetricsHandler].
//
// Off (the default) it makes nothing: its observers are nil, and the host
// and the runtime pay a nil check per stage. No OpenTelemetry type appears
// in this package's exported API; docs/telemetry.md lists the spans, the
// metrics, their attributes and what never goes into them.
package telemetry
