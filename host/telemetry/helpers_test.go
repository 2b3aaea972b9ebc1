package telemetry

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// memory is a Telemetry whose spans and metrics stay in memory.
type memory struct {
	*Telemetry
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
}

func newMemory(t testing.TB, cfg config.Telemetry) *memory {
	t.Helper()
	m := &memory{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	tel, err := build(cfg, Options{}, m.spans, m.reader, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Telemetry = tel
	t.Cleanup(func() { tel.Shutdown(context.Background()) })
	return m
}

// ended flushes the queue and returns the spans ended so far.
func (m *memory) ended(t testing.TB) tracetest.SpanStubs {
	t.Helper()
	if err := m.tp.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return m.spans.GetSpans()
}

// sum is the value of a counter's data point with the given attributes
// (a subset of the point's), summed over matching points.
func (m *memory) sum(t testing.TB, name string, attrs ...attribute.KeyValue) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := m.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, sm := range rm.ScopeMetrics {
		for _, md := range sm.Metrics {
			if md.Name != name {
				continue
			}
			s, ok := md.Data.(metricdata.Sum[int64])
			if !ok {
				t.Fatalf("%s is a %T, not an int64 sum", name, md.Data)
			}
			for _, p := range s.DataPoints {
				if hasAll(p.Attributes, attrs) {
					total += p.Value
				}
			}
		}
	}
	return total
}

func hasAll(set attribute.Set, attrs []attribute.KeyValue) bool {
	for _, a := range attrs {
		if v, ok := set.Value(a.Key); !ok || v != a.Value {
			return false
		}
	}
	return true
}

// tree indexes spans by their parent.
type tree struct {
	spans    tracetest.SpanStubs
	children map[string][]tracetest.SpanStub // by parent span id; "" for roots
}

func newTree(spans tracetest.SpanStubs) *tree {
	tr := &tree{spans: spans, children: map[string][]tracetest.SpanStub{}}
	for _, s := range spans {
		parent := ""
		if s.Parent.IsValid() {
			parent = s.Parent.SpanID().String()
		}
		tr.children[parent] = append(tr.children[parent], s)
	}
	return tr
}

// kids are s's children named name ("" for all).
func (tr *tree) kids(s tracetest.SpanStub, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, c := range tr.children[s.SpanContext.SpanID().String()] {
		if name == "" || c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

func attr(s tracetest.SpanStub, key string) (attribute.Value, bool) {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return a.Value, true
		}
	}
	return attribute.Value{}, false
}

func str(s tracetest.SpanStub, key string) string {
	v, _ := attr(s, key)
	return v.Emit()
}

// writeConfig makes an agent.toml in a temporary directory: the scripted
// model playing turns, body appended, CALC and POLICY replaced by the
// plugins' paths.
func writeConfig(t *testing.T, body string, turns ...string) string {
	t.Helper()
	dir := t.TempDir()
	script := `{"turns":[` + strings.Join(turns, ",") + `]}`
	if err := os.WriteFile(filepath.Join(dir, "script.json"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, pkg := range map[string]string{"CALC": "plugins/calc", "POLICY": "plugins/policy"} {
		if strings.Contains(body, name) {
			body = strings.ReplaceAll(body, name, wasmbuild.ForTest(t, pkg))
		}
	}
	head := "[model]\nprovider = \"scripted\"\nscript = \"script.json\"\n[runtime]\ncache_dir = \"" + wasmbuild.TestCacheDir() + "\"\n"
	path := filepath.Join(dir, "agent.toml")
	if err := os.WriteFile(path, []byte(head+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func toolCalls(calls ...[3]string) string {
	var parts []string
	for _, c := range calls {
		parts = append(parts, fmt.Sprintf(`{"type":"toolCall","id":%q,"name":%q,"arguments":%s}`, c[0], c[1], c[2]))
	}
	return `{"content":[` + strings.Join(parts, ",") + `]}`
}
