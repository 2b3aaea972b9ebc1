package telemetry

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/runtime"
)

// TestOffIsNil: with [telemetry] off the observers are nil interfaces, so
// the host and the runtime skip them with a nil check.
func TestOffIsNil(t *testing.T) {
	for _, exporter := range []string{"", "off"} {
		tel, err := New(config.Telemetry{Exporter: exporter}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if tel.HostObserver() != nil || tel.RuntimeObserver() != nil {
			t.Errorf("exporter %q: observers are not nil", exporter)
		}
		tel.NameTool("x", "p", "sha")
		tel.WatchRuntime(func() runtime.Stats { return runtime.Stats{} })
		if err := tel.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
		rec := httptest.NewRecorder()
		tel.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("exporter %q: /metrics answered %d without Options.Prometheus", exporter, rec.Code)
		}
	}
	var none *Telemetry
	if none.HostObserver() != nil || none.Shutdown(context.Background()) != nil {
		t.Error("a nil *Telemetry is not off")
	}
}

// TestPrometheusHandler scrapes /metrics over HTTP after a run, with the
// exporter off: serve's metrics do not need a collector.
func TestPrometheusHandler(t *testing.T) {
	tel, err := New(config.Telemetry{}, Options{Prometheus: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	if tel.RuntimeObserver() == nil {
		t.Fatal("metrics are kept for /metrics, but the runtime is not observed")
	}
	stages(tel.HostObserver())
	tel.WatchRuntime(func() runtime.Stats { return runtime.Stats{Running: 3, Waiting: 1} })
	tel.WatchPool("calc", func() int { return 2 })
	srv := httptest.NewServer(tel.MetricsHandler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	text := string(body)
	for _, want := range []string{
		`wasmagent_tool_calls_total{gen_ai_tool_name="calc",otel_scope_name="github.com/wasmagent/wasmagent"`,
		`wasmagent_hook_calls_total{`,
		`wasmagent_runs_total{`,
		`wasmagent_runtime_calls_running{otel_scope_name="github.com/wasmagent/wasmagent"`,
		`wasmagent_plugin_pool_ready{otel_scope_name="github.com/wasmagent/wasmagent"`,
		`wasmagent_tool_duration_seconds_bucket{`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if t.Failed() || os.Getenv("WA_DUMP") != "" {
		t.Log(text)
	}
	if strings.Contains(text, "secret") {
		t.Error("/metrics carries the arguments")
	}
}

// TestStdoutExporter writes spans as JSON to [telemetry] path.
func TestStdoutExporter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spans.json")
	tel, err := New(config.Telemetry{Exporter: "stdout", Path: path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	stages(tel.HostObserver())
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	var seen []string
	for dec.More() {
		var s struct{ Name string }
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("not JSON spans: %v\n%s", err, b)
		}
		seen = append(seen, s.Name)
	}
	if strings.Join(seen, " ") != "wasmagent.hook wasmagent.tool wasmagent.run" {
		t.Errorf("spans written = %v", seen)
	}
}

// TestSamplingKeepsMetrics: sampling = 0 traces no run, and every stage is
// still counted.
func TestSamplingKeepsMetrics(t *testing.T) {
	zero := 0.0
	m := newMemory(t, config.Telemetry{Sampling: &zero})
	for range 3 {
		stages(m.HostObserver())
	}
	if spans := m.ended(t); len(spans) != 0 {
		t.Errorf("%d spans with sampling 0", len(spans))
	}
	if n := m.sum(t, "wasmagent.tool.calls"); n != 3 {
		t.Errorf("tool calls counted = %d, want 3", n)
	}
}
