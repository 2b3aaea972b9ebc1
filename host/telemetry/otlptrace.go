package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// spanExporter sends spans to an OTLP/HTTP collector's /v1/traces.
type spanExporter struct{ c *otlpClient }

var _ sdktrace.SpanExporter = (*spanExporter)(nil)

func (e *spanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	return e.c.export(ctx, "/v1/traces", resourceSpans(spans))
}

func (e *spanExporter) Shutdown(context.Context) error { return nil }

// resourceSpans groups spans by resource and scope, in the order seen.
func resourceSpans(spans []sdktrace.ReadOnlySpan) []proto.Message {
	type key struct {
		res   *resource.Resource
		scope instrumentation.Scope
	}
	var out []proto.Message
	byRes := map[*resource.Resource]*tracepb.ResourceSpans{}
	byScope := map[key]*tracepb.ScopeSpans{}
	for _, s := range spans {
		rs := byRes[s.Resource()]
		if rs == nil {
			rs = &tracepb.ResourceSpans{Resource: resourceProto(s.Resource())}
			if s.Resource() != nil {
				rs.SchemaUrl = s.Resource().SchemaURL()
			}
			byRes[s.Resource()] = rs
			out = append(out, rs)
		}
		k := key{s.Resource(), s.InstrumentationScope()}
		ss := byScope[k]
		if ss == nil {
			ss = &tracepb.ScopeSpans{Scope: scopeProto(k.scope), SchemaUrl: k.scope.SchemaURL}
			byScope[k] = ss
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, spanProto(s))
	}
	return out
}

func spanProto(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	p := &tracepb.Span{
		TraceId:                tid[:],
		SpanId:                 sid[:],
		TraceState:             sc.TraceState().String(),
		Name:                   s.Name(),
		Kind:                   tracepb.Span_SpanKind(s.SpanKind()), // the same numbers, 0–5
		StartTimeUnixNano:      uint64(s.StartTime().UnixNano()),
		EndTimeUnixNano:        uint64(s.EndTime().UnixNano()),
		Attributes:             attributesProto(s.Attributes()),
		DroppedAttributesCount: uint32(s.DroppedAttributes()),
		DroppedEventsCount:     uint32(s.DroppedEvents()),
		DroppedLinksCount:      uint32(s.DroppedLinks()),
		Flags:                  uint32(sc.TraceFlags()) | 0x100, // 0x100: has_is_remote known
		Status:                 statusProto(s.Status()),
	}
	if parent := s.Parent(); parent.IsValid() {
		psid := parent.SpanID()
		p.ParentSpanId = psid[:]
		if parent.IsRemote() {
			p.Flags |= 0x200
		}
	}
	for _, ev := range s.Events() {
		p.Events = append(p.Events, &tracepb.Span_Event{TimeUnixNano: uint64(ev.Time.UnixNano()), Name: ev.Name,
			Attributes: attributesProto(ev.Attributes), DroppedAttributesCount: uint32(ev.DroppedAttributeCount)})
	}
	return p
}

func statusProto(st sdktrace.Status) *tracepb.Status {
	switch st.Code {
	case codes.Error:
		return &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: st.Description}
	case codes.Ok:
		return &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK}
	}
	return &tracepb.Status{}
}

func resourceProto(r *resource.Resource) *resourcepb.Resource {
	if r == nil {
		return &resourcepb.Resource{}
	}
	return &resourcepb.Resource{Attributes: attributesProto(r.Attributes())}
}

func scopeProto(s instrumentation.Scope) *commonpb.InstrumentationScope {
	return &commonpb.InstrumentationScope{Name: s.Name, Version: s.Version}
}
