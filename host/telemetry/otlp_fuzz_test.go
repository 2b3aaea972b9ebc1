package telemetry

import (
	"math"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// FuzzAttributesProto: any attribute, of any type, survives the OTLP
// encoding: what a collector decodes is what the span held.
func FuzzAttributesProto(f *testing.F) {
	f.Add("gen_ai.tool.name", "calc", int64(3), 1.5, true)
	f.Add("", "\xff\xfe", int64(math.MinInt64), math.Inf(-1), false)
	f.Fuzz(func(t *testing.T, key, s string, n int64, x float64, b bool) {
		k := attribute.Key(key)
		attrs := []attribute.KeyValue{k.String(s), k.Int64(n), k.Float64(x), k.Bool(b),
			k.StringSlice([]string{s, key}), k.Int64Slice([]int64{n, -n}), k.Float64Slice([]float64{x}), k.BoolSlice([]bool{b, !b})}
		wire, err := proto.Marshal(&commonpb.KeyValueList{Values: attributesProto(attrs)})
		if err != nil {
			return // a string that is not UTF-8: proto refuses it, and so would a collector
		}
		var back commonpb.KeyValueList
		if err := proto.Unmarshal(wire, &back); err != nil {
			t.Fatal(err)
		}
		if len(back.Values) != len(attrs) {
			t.Fatalf("%d attributes back of %d", len(back.Values), len(attrs))
		}
		for i, kv := range back.Values {
			if kv.Key != key {
				t.Fatalf("key %q back as %q", key, kv.Key)
			}
			if got, want := fromProto(kv.Value), attrs[i].Value.Emit(); got != want {
				t.Fatalf("%s: %q back as %q", attrs[i].Value.Type(), want, got)
			}
		}
	})
}

// fromProto renders an AnyValue as attribute.Value.Emit renders its value.
func fromProto(v *commonpb.AnyValue) string {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return attribute.Int64Value(x.IntValue).Emit()
	case *commonpb.AnyValue_DoubleValue:
		return attribute.Float64Value(x.DoubleValue).Emit()
	case *commonpb.AnyValue_BoolValue:
		return attribute.BoolValue(x.BoolValue).Emit()
	case *commonpb.AnyValue_ArrayValue:
		var parts []attribute.Value
		for _, e := range x.ArrayValue.Values {
			switch y := e.Value.(type) {
			case *commonpb.AnyValue_StringValue:
				parts = append(parts, attribute.StringValue(y.StringValue))
			case *commonpb.AnyValue_IntValue:
				parts = append(parts, attribute.Int64Value(y.IntValue))
			case *commonpb.AnyValue_DoubleValue:
				parts = append(parts, attribute.Float64Value(y.DoubleValue))
			case *commonpb.AnyValue_BoolValue:
				parts = append(parts, attribute.BoolValue(y.BoolValue))
			}
		}
		return sliceOf(parts).Emit()
	}
	return "?"
}

// sliceOf makes a slice attribute of same-typed values.
func sliceOf(vs []attribute.Value) attribute.Value {
	if len(vs) == 0 {
		return attribute.StringSliceValue(nil)
	}
	switch vs[0].Type() {
	case attribute.INT64:
		out := make([]int64, len(vs))
		for i, v := range vs {
			out[i] = v.AsInt64()
		}
		return attribute.Int64SliceValue(out)
	case attribute.FLOAT64:
		out := make([]float64, len(vs))
		for i, v := range vs {
			out[i] = v.AsFloat64()
		}
		return attribute.Float64SliceValue(out)
	case attribute.BOOL:
		out := make([]bool, len(vs))
		for i, v := range vs {
			out[i] = v.AsBool()
		}
		return attribute.BoolSliceValue(out)
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.AsString()
	}
	return attribute.StringSliceValue(out)
}
