package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// metricExporter sends metrics to an OTLP/HTTP collector's /v1/metrics,
// cumulative, as the SDK's default selectors aggregate them.
type metricExporter struct{ c *otlpClient }

var _ sdkmetric.Exporter = (*metricExporter)(nil)

func (e *metricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

func (e *metricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (e *metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	out := &metricspb.ResourceMetrics{Resource: resourceProto(rm.Resource)}
	if rm.Resource != nil {
		out.SchemaUrl = rm.Resource.SchemaURL()
	}
	for _, sm := range rm.ScopeMetrics {
		ss := &metricspb.ScopeMetrics{Scope: scopeProto(sm.Scope), SchemaUrl: sm.Scope.SchemaURL}
		for _, m := range sm.Metrics {
			if p := metricProto(m); p != nil {
				ss.Metrics = append(ss.Metrics, p)
			}
		}
		out.ScopeMetrics = append(out.ScopeMetrics, ss)
	}
	return e.c.export(ctx, "/v1/metrics", []proto.Message{out})
}

func (e *metricExporter) ForceFlush(context.Context) error { return nil }
func (e *metricExporter) Shutdown(context.Context) error   { return nil }

// metricProto converts the kinds of data our instruments make (int64 and
// float64 sums and gauges, float64 histograms); nil for others.
func metricProto(m metricdata.Metrics) *metricspb.Metric {
	p := &metricspb.Metric{Name: m.Name, Description: m.Description, Unit: m.Unit}
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		p.Data = &metricspb.Metric_Sum{Sum: &metricspb.Sum{DataPoints: numberPoints(d.DataPoints, asInt),
			AggregationTemporality: temporality(d.Temporality), IsMonotonic: d.IsMonotonic}}
	case metricdata.Sum[float64]:
		p.Data = &metricspb.Metric_Sum{Sum: &metricspb.Sum{DataPoints: numberPoints(d.DataPoints, asDouble),
			AggregationTemporality: temporality(d.Temporality), IsMonotonic: d.IsMonotonic}}
	case metricdata.Gauge[int64]:
		p.Data = &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: numberPoints(d.DataPoints, asInt)}}
	case metricdata.Gauge[float64]:
		p.Data = &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: numberPoints(d.DataPoints, asDouble)}}
	case metricdata.Histogram[float64]:
		h := &metricspb.Histogram{AggregationTemporality: temporality(d.Temporality)}
		for _, dp := range d.DataPoints {
			sum := dp.Sum
			hp := &metricspb.HistogramDataPoint{Attributes: attrSetProto(dp.Attributes), StartTimeUnixNano: nanos(dp.StartTime),
				TimeUnixNano: nanos(dp.Time), Count: dp.Count, Sum: &sum, BucketCounts: dp.BucketCounts, ExplicitBounds: dp.Bounds}
			if v, ok := dp.Min.Value(); ok {
				hp.Min = &v
			}
			if v, ok := dp.Max.Value(); ok {
				hp.Max = &v
			}
			h.DataPoints = append(h.DataPoints, hp)
		}
		p.Data = &metricspb.Metric_Histogram{Histogram: h}
	default:
		return nil
	}
	return p
}

func numberPoints[N int64 | float64](dps []metricdata.DataPoint[N], value func(N) *metricspb.NumberDataPoint) []*metricspb.NumberDataPoint {
	out := make([]*metricspb.NumberDataPoint, 0, len(dps))
	for _, dp := range dps {
		p := value(dp.Value)
		p.Attributes, p.StartTimeUnixNano, p.TimeUnixNano = attrSetProto(dp.Attributes), nanos(dp.StartTime), nanos(dp.Time)
		out = append(out, p)
	}
	return out
}

func asInt(v int64) *metricspb.NumberDataPoint {
	return &metricspb.NumberDataPoint{Value: &metricspb.NumberDataPoint_AsInt{AsInt: v}}
}

func asDouble(v float64) *metricspb.NumberDataPoint {
	return &metricspb.NumberDataPoint{Value: &metricspb.NumberDataPoint_AsDouble{AsDouble: v}}
}

func temporality(t metricdata.Temporality) metricspb.AggregationTemporality {
	if t == metricdata.DeltaTemporality {
		return metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
	}
	return metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
}

func attrSetProto(s attribute.Set) []*commonpb.KeyValue { return attributesProto(s.ToSlice()) }

func nanos(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}
