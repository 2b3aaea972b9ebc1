package config

import (
	"net/http"
	"net/url"
)

// Telemetry is [telemetry]: OpenTelemetry traces and metrics
// (docs/telemetry.md). Off by default.
type Telemetry struct {
	// Exporter is where spans and metrics go: "otlp-http" (OTLP over
	// HTTP, protobuf), "stdout" (JSON lines, one span a line, to Path or
	// the standard error) or "off" (the default).
	Exporter string `toml:"exporter"`
	// Endpoint is the OTLP/HTTP collector's base URL (default
	// http://localhost:4318); traces go to /v1/traces, metrics to
	// /v1/metrics under it.
	Endpoint string `toml:"endpoint"`
	// Headers are sent with every export: header name → the name of the
	// environment variable holding its value (never the value itself).
	Headers map[string]string `toml:"headers"`
	// Path is the file the stdout exporter appends to (relative to the
	// configuration; default: the standard error, as the standard output
	// carries run --json, rpc and mcp).
	Path string `toml:"path"`
	// Sampling is the fraction of runs traced, 0 to 1 (default 1). A run's
	// spans are all kept or all dropped.
	Sampling *float64 `toml:"sampling"`
	// ServiceName is the service.name resource attribute (default
	// "wasmagent").
	ServiceName string `toml:"service_name"`
	// Arguments and Results let tool arguments and result text into spans,
	// cut to MaxFieldBytes (default 4096). Off by default: they may hold
	// what a collector should not.
	Arguments     bool `toml:"arguments"`
	Results       bool `toml:"results"`
	MaxFieldBytes int  `toml:"max_field_bytes"`
	// QueueSize bounds the spans waiting for export (default 2048); when a
	// collector is slow or down, newer spans are dropped and counted
	// (wasmagent.telemetry.spans.dropped), never waited for.
	QueueSize int `toml:"queue_size"`
}

// Enabled reports whether spans and metrics are exported.
func (t *Telemetry) Enabled() bool { return t.Exporter != "" && t.Exporter != "off" }

func (c *checker) checkTelemetry() {
	t := &c.f.Telemetry
	switch t.Exporter {
	case "", "off", "stdout":
	case "otlp-http":
		if t.Endpoint == "" {
			t.Endpoint = "http://localhost:4318"
		}
		if u, err := url.Parse(t.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			c.errorf("telemetry.endpoint", "%q is not an http(s)://host[:port][/path] URL", t.Endpoint)
		}
	case "otlp-grpc":
		c.errorf("telemetry.exporter", `"otlp-grpc" is not built in; use "otlp-http" (collectors take OTLP/HTTP on port 4318; see RATIONALE.md)`)
	default:
		c.errorf("telemetry.exporter", `%q is not "otlp-http", "stdout" or "off"`, t.Exporter)
	}
	if t.Endpoint != "" && t.Exporter != "otlp-http" {
		c.errorf("telemetry.endpoint", `is used only with exporter = "otlp-http"`)
	}
	if t.Path != "" {
		if t.Exporter != "stdout" {
			c.errorf("telemetry.path", `is used only with exporter = "stdout"`)
		}
		t.Path = c.abs("telemetry.path", t.Path)
	}
	c.checkHeaders("telemetry.headers", t.Headers)
	if s := t.Sampling; s != nil && !(*s >= 0 && *s <= 1) {
		c.errorf("telemetry.sampling", "%v is not between 0 and 1", *s)
	}
	if t.MaxFieldBytes < 0 {
		c.errorf("telemetry.max_field_bytes", "%d is negative", t.MaxFieldBytes)
	}
	if t.QueueSize < 0 {
		c.errorf("telemetry.queue_size", "%d is negative", t.QueueSize)
	}
}

// validEnvName is a POSIX environment variable name.
func validEnvName(s string) bool {
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

// TelemetryHeaders reads the values of [telemetry] headers from the
// environment: an unset or empty variable is an error naming the key.
func (f *File) TelemetryHeaders() (http.Header, error) {
	return f.readHeaders("telemetry.headers", f.Telemetry.Headers)
}
