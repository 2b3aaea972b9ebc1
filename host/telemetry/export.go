package telemetry

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/wasmagent/wasmagent/host/config"
)

// metricInterval is how often metrics are pushed to an OTLP collector.
const metricInterval = 15 * time.Second

// exporters makes [telemetry]'s span exporter and metric reader, and what
// must be closed after them.
func exporters(cfg config.Telemetry, headers http.Header) (sdktrace.SpanExporter, sdkmetric.Reader, []func(context.Context) error, error) {
	switch cfg.Exporter {
	case "otlp-http":
		return otlpHTTP(cfg, headers)
	case "stdout":
		w, closer, err := stdoutFile(cfg.Path)
		if err != nil {
			return nil, nil, nil, err
		}
		exp, err := stdouttrace.New(stdouttrace.WithWriter(w))
		if err != nil {
			return nil, nil, nil, err
		}
		return exp, nil, closer, nil
	}
	return nil, nil, nil, fmt.Errorf("telemetry: unknown exporter %q", cfg.Exporter)
}

func otlpHTTP(cfg config.Telemetry, headers http.Header) (sdktrace.SpanExporter, sdkmetric.Reader, []func(context.Context) error, error) {
	c := &otlpClient{base: strings.TrimSuffix(cfg.Endpoint, "/"), headers: headers, client: &http.Client{Timeout: exportTimeout}}
	return &spanExporter{c}, sdkmetric.NewPeriodicReader(&metricExporter{c}, sdkmetric.WithInterval(metricInterval), sdkmetric.WithTimeout(exportTimeout)), nil, nil
}

// stdoutFile opens the stdout exporter's file: path, appended to, or the
// standard error.
func stdoutFile(path string) (io.Writer, []func(context.Context) error, error) {
	if path == "" {
		return os.Stderr, nil, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry.path: %w", err)
	}
	return f, []func(context.Context) error{func(context.Context) error { return f.Close() }}, nil
}
