package telemetry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/config"
)

// receiver is an in-process OTLP/HTTP collector: it decodes what it is
// sent with the protocol's own protobuf types. An Export*ServiceRequest
// holds one field, 1, repeated ResourceSpans (ResourceMetrics), exactly
// as TracesData (MetricsData) does: opentelemetry-proto defines those two
// for this very purpose, and decoding with them keeps the collector
// packages, which carry the gRPC service stubs and with them gRPC,
// out of the module graph. A field the request does not have is refused,
// as the proto3 decoder would otherwise keep it silently.
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
		var req tracepb.TracesData
		if err := unmarshalStrict(body, &req); err != nil {
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
		exportAnswer(w)
	case "/otel/v1/metrics":
		var req metricspb.MetricsData
		if err := unmarshalStrict(body, &req); err != nil {
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
		exportAnswer(w)
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

// unmarshalStrict decodes b into m and refuses any field m's schema does
// not have, at any depth: proto.Unmarshal keeps such fields as unknown,
// so an exporter writing a wrong field number would go unnoticed.
func unmarshalStrict(b []byte, m proto.Message) error {
	if err := proto.Unmarshal(b, m); err != nil {
		return err
	}
	return noUnknown(m.ProtoReflect(), string(m.ProtoReflect().Descriptor().Name()))
}

func noUnknown(m protoreflect.Message, at string) error {
	if u := m.GetUnknown(); len(u) > 0 {
		num, typ, _ := protowire.ConsumeTag(u)
		return fmt.Errorf("%s: field %d (wire type %d) is not in %s", at, num, typ, m.Descriptor().FullName())
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() {
			return true
		}
		name := at + "." + string(fd.Name())
		if fd.IsList() {
			for i := range v.List().Len() {
				if err = noUnknown(v.List().Get(i).Message(), fmt.Sprintf("%s[%d]", name, i)); err != nil {
					return false
				}
			}
			return true
		}
		err = noUnknown(v.Message(), name)
		return err == nil
	})
	return err
}

// exportAnswer answers a whole success: an Export*ServiceResponse with no
// partial_success, which encodes to no bytes at all.
func exportAnswer(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

// TestReceiverRefusesWhatIsNotOTLP: the test collector is strict, so
// TestOTLPHTTPExport fails when the exporter writes a field number the
// protocol does not have, at the top or deep in a span, and accepts the
// protocol's own encoding of the same data.
func TestReceiverRefusesWhatIsNotOTLP(t *testing.T) {
	span, err := proto.Marshal(&tracepb.Span{Name: "s", TraceId: make([]byte, 16), SpanId: make([]byte, 8)})
	if err != nil {
		t.Fatal(err)
	}
	request := func(spanField, scopeField, resourceField protowire.Number, span []byte) []byte {
		scope := protowire.AppendBytes(protowire.AppendTag(nil, spanField, protowire.BytesType), span)
		resource := protowire.AppendBytes(protowire.AppendTag(nil, scopeField, protowire.BytesType), scope)
		return protowire.AppendBytes(protowire.AppendTag(nil, resourceField, protowire.BytesType), resource)
	}
	good := request(2, 2, 1, span) // ScopeSpans.spans = 2, ResourceSpans.scope_spans = 2, resource_spans = 1
	unknownInSpan := protowire.AppendVarint(protowire.AppendTag(append([]byte(nil), span...), 99, protowire.VarintType), 1)
	cases := []struct {
		name string
		body []byte
		want int
	}{
		{"the protocol's encoding", good, http.StatusOK},
		{"resource_spans as field 2", request(2, 2, 2, span), http.StatusBadRequest},
		{"scope_spans as field 9", request(2, 9, 1, span), http.StatusBadRequest},
		{"a span with a field 99", request(2, 2, 1, unknownInSpan), http.StatusBadRequest},
		{"not protobuf", []byte{0xff, 0xff, 0xff}, http.StatusBadRequest},
	}
	for _, c := range cases {
		rc := &receiver{spans: map[string]map[string]string{}, raw: map[string]*tracepb.Span{}, metrics: map[string]*metricspb.Metric{}}
		req := httptest.NewRequest(http.MethodPost, "/otel/v1/traces", bytes.NewReader(c.body))
		req.Header.Set("Content-Type", "application/x-protobuf")
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, req)
		if w.Code != c.want {
			t.Errorf("%s: the receiver answered %d (%s), want %d", c.name, w.Code, strings.TrimSpace(w.Body.String()), c.want)
		}
		if c.want == http.StatusOK && rc.spans["s"] == nil {
			t.Errorf("%s: the receiver kept no span", c.name)
		}
	}
}
