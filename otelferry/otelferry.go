// Package otelferry makes OpenTelemetry spans and metrics of the requests
// a Ferry server answers, following the OpenTelemetry semantic conventions
// for the Model Context Protocol: a SERVER span per request, named
// "{mcp.method.name} {target}" (the tool of a tools/call, the prompt of a
// prompts/get, nothing otherwise), and the mcp.server.operation.duration
// histogram.
//
// The span's parent is the trace context the client sent in the
// request's params._meta (traceparent, tracestate and baggage), as the
// conventions and the 2026-07-28 spec reserve those keys; the context the
// request arrived in (the HTTP server span of otelhttp, say) is linked to
// it. A request without a trace context in _meta is a child of that
// context instead. Baggage from _meta reaches the handler's context.
//
// Names a client makes up stay out of span names and metric series, which
// must stay few: a tools/call of a tool the server does not have is named
// plain "tools/call" (its gen_ai.tool.name stays on the span alone, not
// in the histogram), and a method the server does not serve is recorded
// as [MethodOther]. A resource URI is never in a span name or a series.
//
// Tool arguments and results are never recorded, unless
// [Options.RecordToolIO] says what to record of them.
//
// Install it with [ferry.ServerOptions.Observer]:
//
//	obs, err := otelferry.New(nil) // the global providers
//	if err != nil { ... }
//	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Observer: obs})
package otelferry

import (
	"context"
	"encoding/json"
	"strconv"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/ferry-mcp/ferry"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/ferry-mcp/ferry/otelferry"

// The names the MCP semantic conventions define, as otelferry records
// them (see testdata/semconv-mcp.txt for the text they are pinned to).
const (
	AttrMethodName        = "mcp.method.name"
	AttrToolName          = "gen_ai.tool.name"
	AttrPromptName        = "gen_ai.prompt.name"
	AttrResourceURI       = "mcp.resource.uri"
	AttrRequestID         = "jsonrpc.request.id"
	AttrProtocolVersion   = "mcp.protocol.version"
	AttrSessionID         = "mcp.session.id"
	AttrStatusCode        = "rpc.response.status_code"
	AttrErrorType         = "error.type"
	AttrOperationName     = "gen_ai.operation.name"
	AttrNetworkTransport  = "network.transport"
	AttrNetworkProtocol   = "network.protocol.name"
	AttrToolCallArguments = "gen_ai.tool.call.arguments"
	AttrToolCallResult    = "gen_ai.tool.call.result"

	// MetricServerDuration is the histogram of request durations, in
	// seconds.
	MetricServerDuration = "mcp.server.operation.duration"

	// ErrorTypeTool is error.type for a tools/call result with isError.
	ErrorTypeTool = "tool_error"
	// OperationExecuteTool is gen_ai.operation.name for a tools/call.
	OperationExecuteTool = "execute_tool"
)

// DurationBuckets are the explicit bucket boundaries, in seconds, the
// conventions give mcp.server.operation.duration.
var DurationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Options configures an [Observer]. The zero value uses the global
// providers and the W3C propagators.
type Options struct {
	// TracerProvider makes the spans. If nil, otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the histogram. If nil, otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// Propagator reads the trace context and baggage from params._meta.
	// If nil, W3C Trace Context and Baggage, the formats whose keys the
	// spec reserves in _meta.
	Propagator propagation.TextMapPropagator
	// RecordToolIO, when set, is asked at the end of each tools/call what
	// to record of its arguments and result (raw JSON, the result nil
	// when the call failed): it returns the text to record as
	// gen_ai.tool.call.arguments and gen_ai.tool.call.result, redacted as
	// needed, with "" for nothing. Arguments and results may hold personal
	// data; if nil, neither is recorded.
	RecordToolIO func(info *ferry.RequestInfo, args, result json.RawMessage) (recordArgs, recordResult string)
}

// Observer is a [ferry.Observer] that makes OpenTelemetry spans and
// metrics. It is safe for concurrent use.
type Observer struct {
	tracer   trace.Tracer
	duration metric.Float64Histogram
	prop     propagation.TextMapPropagator
	recordIO func(info *ferry.RequestInfo, args, result json.RawMessage) (string, string)
}

// New returns an Observer. opts may be nil.
func New(opts *Options) (*Observer, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	if o.Propagator == nil {
		o.Propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	hist, err := o.MeterProvider.Meter(ScopeName).Float64Histogram(MetricServerDuration,
		metric.WithUnit("s"),
		metric.WithDescription("The time an MCP server took to answer a request, from its receipt to its answer."),
		metric.WithExplicitBucketBoundaries(DurationBuckets...))
	if err != nil {
		return nil, err
	}
	return &Observer{tracer: o.TracerProvider.Tracer(ScopeName), duration: hist, prop: o.Propagator, recordIO: o.RecordToolIO}, nil
}

// metaCarrier reads the trace keys of a request's _meta.
type metaCarrier struct{ info *ferry.RequestInfo }

func (c metaCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.info.Trace.TraceParent
	case "tracestate":
		return c.info.Trace.TraceState
	case "baggage":
		return c.info.Trace.Baggage
	}
	return ""
}

func (metaCarrier) Set(string, string) {}

func (metaCarrier) Keys() []string { return []string{"traceparent", "tracestate", "baggage"} }

// MethodOther is the mcp.method.name otelferry records for a method the
// server does not serve: the client's text, which an attacker could vary
// without end, would make a span name and a metric series of each.
const MethodOther = "_OTHER"

// SpanName is the span name of a request: "{mcp.method.name} {target}",
// the target being the tool of a tools/call or the prompt of a
// prompts/get; a resource URI is left out, as the conventions advise,
// since it is of high cardinality. A tool or prompt the server does not
// have is left out too, and a method it does not serve is [MethodOther]
// (see [ferry.RequestInfo.Unknown]): names a client makes up must not
// make span names (or metric series) without bound.
func SpanName(info *ferry.RequestInfo) string {
	method := methodName(info)
	switch info.Target {
	case ferry.TargetTool, ferry.TargetPrompt:
		if info.Name != "" && !info.Unknown {
			return method + " " + info.Name
		}
	}
	return method
}

// methodName is the mcp.method.name of a request: its method, or
// [MethodOther] for one the server does not serve.
func methodName(info *ferry.RequestInfo) string {
	switch info.Target {
	case ferry.TargetTool, ferry.TargetPrompt:
		return info.Method // Unknown is about the target
	}
	if info.Unknown {
		return MethodOther
	}
	return info.Method
}

// Start implements [ferry.Observer]: it starts the request's span.
func (o *Observer) Start(ctx context.Context, info *ferry.RequestInfo) context.Context {
	ambient := trace.SpanContextFromContext(ctx)
	parent := ctx
	var links []trace.Link
	if info.Trace.TraceParent != "" || info.Trace.Baggage != "" {
		parent = o.prop.Extract(ctx, metaCarrier{info})
		if remote := trace.SpanContextFromContext(parent); remote.IsValid() && !remote.Equal(ambient) && ambient.IsValid() {
			links = append(links, trace.Link{SpanContext: ambient})
		}
	}
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs, attribute.String(AttrMethodName, methodName(info)))
	attrs = appendTarget(attrs, info)
	if info.ID != "" && info.ID != "null" {
		attrs = append(attrs, attribute.String(AttrRequestID, info.ID))
	}
	if info.ProtocolVersion != "" {
		attrs = append(attrs, attribute.String(AttrProtocolVersion, info.ProtocolVersion))
	}
	if info.SessionID != "" {
		attrs = append(attrs, attribute.String(AttrSessionID, info.SessionID))
	}
	attrs = appendTransport(attrs, info)
	ctx, _ = o.tracer.Start(parent, SpanName(info), trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attrs...), trace.WithLinks(links...))
	return ctx
}

// appendTarget appends what the request is about: its tool, prompt or
// resource.
func appendTarget(attrs []attribute.KeyValue, info *ferry.RequestInfo) []attribute.KeyValue {
	switch info.Target {
	case ferry.TargetTool:
		return append(attrs, attribute.String(AttrToolName, info.Name), attribute.String(AttrOperationName, OperationExecuteTool))
	case ferry.TargetPrompt:
		return append(attrs, attribute.String(AttrPromptName, info.Name))
	case ferry.TargetResource:
		return append(attrs, attribute.String(AttrResourceURI, info.Name))
	}
	return attrs
}

// appendTransport appends network.transport (tcp for HTTP, pipe for
// stdio) and, for HTTP, network.protocol.name.
func appendTransport(attrs []attribute.KeyValue, info *ferry.RequestInfo) []attribute.KeyValue {
	if info.Transport == ferry.TransportHTTP {
		return append(attrs, attribute.String(AttrNetworkTransport, "tcp"), attribute.String(AttrNetworkProtocol, "http"))
	}
	return append(attrs, attribute.String(AttrNetworkTransport, "pipe"))
}

// End implements [ferry.Observer]: it ends the request's span and
// records its duration.
func (o *Observer) End(ctx context.Context, info *ferry.RequestInfo, end ferry.RequestEnd) {
	span := trace.SpanFromContext(ctx)
	var outcome []attribute.KeyValue
	switch {
	case end.ErrorCode != 0:
		code := strconv.Itoa(int(end.ErrorCode))
		outcome = []attribute.KeyValue{attribute.String(AttrErrorType, code), attribute.String(AttrStatusCode, code)}
		span.SetStatus(codes.Error, end.ErrorMessage)
	case end.ToolError:
		outcome = []attribute.KeyValue{attribute.String(AttrErrorType, ErrorTypeTool)}
		span.SetStatus(codes.Error, ErrorTypeTool)
	}
	span.SetAttributes(outcome...)
	if o.recordIO != nil && info.Target == ferry.TargetTool {
		args, result := o.recordIO(info, info.Arguments, end.Result)
		if args != "" {
			span.SetAttributes(attribute.String(AttrToolCallArguments, args))
		}
		if result != "" {
			span.SetAttributes(attribute.String(AttrToolCallResult, result))
		}
	}
	span.End()

	// The histogram's attributes: those of the span that the conventions
	// list for the metric (no id, no session: they are of high
	// cardinality).
	attrs := make([]attribute.KeyValue, 0, 8)
	// A tool or prompt the server does not have is left out: its name is
	// the client's.
	attrs = append(attrs, attribute.String(AttrMethodName, methodName(info)))
	switch info.Target {
	case ferry.TargetTool:
		if !info.Unknown {
			attrs = append(attrs, attribute.String(AttrToolName, info.Name))
		}
		attrs = append(attrs, attribute.String(AttrOperationName, OperationExecuteTool))
	case ferry.TargetPrompt:
		if !info.Unknown {
			attrs = append(attrs, attribute.String(AttrPromptName, info.Name))
		}
	}
	if info.ProtocolVersion != "" {
		attrs = append(attrs, attribute.String(AttrProtocolVersion, info.ProtocolVersion))
	}
	attrs = appendTransport(attrs, info)
	attrs = append(attrs, outcome...)
	o.duration.Record(ctx, end.Duration.Seconds(), metric.WithAttributes(attrs...))
}
