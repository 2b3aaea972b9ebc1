package telemetry

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	collectormetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
)

// receiver is an in-process OTLP/HTTP collector: it decodes what it is
// sent with the protocol's own protobuf types.
type receiver struct {
	mu      sync.Mutex
	spans   map[string]map[string]string // span name → attributes as text
	raw     map[string]*tracepb.Span
	service string
	metrics map[string]*metricspb.Metric
	auth    []string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.auth = append(rc.auth, r.Header.Get("Authorization"))
	switch r.URL.Path {
	case "/otel/v1/traces":
		var req collectortrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range req.ResourceSpans {
			for _, kv := range rs.Resource.GetAttributes() {
				if kv.Key == "service.name" {
					rc.service = kv.Value.GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					attrs := map[string]string{}
					for _, kv := range s.Attributes {
						attrs[kv.Key] = kv.Value.String()
					}
					rc.spans[s.Name] = attrs
					rc.raw[s.Name] = s
				}
			}
		}
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	case "/otel/v1/metrics":
		var req collectormetrics.ExportMetricsServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					rc.metrics[m.Name] = m
				}
			}
		}
		out, _ := proto.Marshal(&collectormetrics.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	default:
		http.NotFound(w, r)
	}
}

// stages runs a run with one tool call and one hook through o.
func stages(o host.Observer) {
	ctx, endRun := o.Begin(context.Background(), host.Stage{Kind: host.StageRun})
	ctx, endTool := o.Begin(ctx, host.Stage{Kind: host.StageTool, Tool: "calc", ToolCallID: "c1", Args: []byte(`{"expression":"secret"}`)})
	_, endHook := o.Begin(ctx, host.Stage{Kind: host.StageHook, Tool: "calc", ToolCallID: "c1", HookKind: "beforeToolCall", Hook: "policy"})
	endHook(host.StageEnd{Outcome: "ok", Report: &host.HookReport{Decision: "allow"}})
	res := host.ToolResult{Content: host.Text("42")}
	endTool(host.StageEnd{Outcome: "ok", Result: &res})
	endRun(host.StageEnd{Outcome: "ok"})
}

func TestOTLPHTTPExport(t *testing.T) {
	rc := &receiver{spans: map[string]map[string]string{}, raw: map[string]*tracepb.Span{}, metrics: map[string]*metricspb.Metric{}}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	t.Setenv("WA_TEST_OTLP_AUTH", "Bearer s3cret")
	path := writeConfigText(t, `
[telemetry]
exporter = "otlp-http"
endpoint = "`+srv.URL+`/otel"
headers = { Authorization = "WA_TEST_OTLP_AUTH" }
service_name = "wa-test"
`)
	f, err := config.LoadTools(path)
	if err != nil {
		t.Fatal(err)
	}
	headers, err := f.TelemetryHeaders()
	if err != nil {
		t.Fatal(err)
	}
	tel, err := New(f.Telemetry, Options{Headers: headers})
	if err != nil {
		t.Fatal(err)
	}
	stages(tel.HostObserver())
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, name := range []string{"wasmagent.run", "wasmagent.tool", "wasmagent.hook"} {
		if rc.spans[name] == nil {
			t.Errorf("the collector got no %s span (got %v)", name, rc.spans)
		}
	}
	run, tool, hook := rc.raw["wasmagent.run"], rc.raw["wasmagent.tool"], rc.raw["wasmagent.hook"]
	if run == nil || tool == nil || hook == nil {
		t.FailNow()
	}
	if len(run.ParentSpanId) != 0 || !bytes.Equal(tool.ParentSpanId, run.SpanId) || !bytes.Equal(hook.ParentSpanId, tool.SpanId) ||
		!bytes.Equal(hook.TraceId, run.TraceId) || len(run.TraceId) != 16 {
		t.Errorf("the tree did not survive the wire: run %x, tool %x ← %x, hook %x ← %x", run.SpanId, tool.SpanId, tool.ParentSpanId, hook.SpanId, hook.ParentSpanId)
	}
	if tool.EndTimeUnixNano < tool.StartTimeUnixNano || tool.StartTimeUnixNano < run.StartTimeUnixNano {
		t.Errorf("times: run from %d, tool %d to %d", run.StartTimeUnixNano, tool.StartTimeUnixNano, tool.EndTimeUnixNano)
	}
	if rc.service != "wa-test" {
		t.Errorf("service.name = %q", rc.service)
	}
	if got := rc.spans["wasmagent.tool"][attrTool]; !strings.Contains(got, "calc") {
		t.Errorf("tool span's %s = %q", attrTool, got)
	}
	for name, attrs := range rc.spans {
		for k, v := range attrs {
			if strings.Contains(v, "secret") {
				t.Errorf("%s carries the arguments in %s", name, k)
			}
		}
	}
	calls := rc.metrics["wasmagent.tool.calls"].GetSum()
	if len(calls.GetDataPoints()) != 1 || calls.DataPoints[0].GetAsInt() != 1 || !calls.IsMonotonic {
		t.Errorf("wasmagent.tool.calls = %v", calls)
	}
	hist := rc.metrics["wasmagent.hook.duration"].GetHistogram()
	if len(hist.GetDataPoints()) != 1 || hist.DataPoints[0].Count != 1 || len(hist.DataPoints[0].ExplicitBounds) != len(secondBuckets) ||
		len(hist.DataPoints[0].BucketCounts) != len(secondBuckets)+1 {
		t.Errorf("wasmagent.hook.duration = %v", hist)
	}
	for _, a := range rc.auth {
		if a != "Bearer s3cret" {
			t.Errorf("Authorization = %q, want the value of the variable", a)
		}
	}
}

// TestDeadCollectorDropsAndCounts: a collector that never answers neither
// holds the stages up nor the exit past its deadline; what the queue
// cannot hold is dropped and counted.
func TestDeadCollectorDropsAndCounts(t *testing.T) {
	stuck := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stuck:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(stuck)
	tel, err := New(config.Telemetry{Exporter: "otlp-http", Endpoint: srv.URL, QueueSize: 4}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := tel.HostObserver()
	for range 100 {
		stages(o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the deadline has passed already: Shutdown must give up at once
	if err := tel.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown = %v, want context.Canceled", err)
	}
	if d := tel.queue.dropped.Load(); d < 300-2*4 {
		t.Errorf("dropped %d of 300 spans with a queue of 4 (at most 8 may be held)", d)
	}
}

func writeConfigText(t *testing.T, body string) string {
	t.Helper()
	return writeConfig(t, body)
}
