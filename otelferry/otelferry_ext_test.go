package otelferry_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/otelferry"
)

const (
	remoteTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	remoteSpan  = "00f067aa0ba902b7"
	traceparent = "00-" + remoteTrace + "-" + remoteSpan + "-01"
	modernMeta  = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"traceparent":"` + traceparent + `","tracestate":"rojo=1","baggage":"user=alice"}`
)

// rig is a server observed by otelferry into an in-memory span recorder
// and a manual metric reader.
type rig struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	srv    *ferry.Server

	mu      sync.Mutex
	inTool  trace.SpanContext // the span context the echo tool ran in
	baggage string            // the baggage member "user" the echo tool saw
}

func newRig(t *testing.T, opts *otelferry.Options) *rig {
	t.Helper()
	r := &rig{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	var o otelferry.Options
	if opts != nil {
		o = *opts
	}
	o.TracerProvider, o.MeterProvider = r.tp, mp
	obs, err := otelferry.New(&o)
	if err != nil {
		t.Fatal(err)
	}
	r.srv = ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), Observer: obs})
	r.srv.AddTool(ferry.Tool{Name: "echo", Description: "Echoes."}, func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		r.mu.Lock()
		r.inTool = trace.SpanContextFromContext(ctx)
		r.baggage = baggage.FromContext(ctx).Member("user").Value()
		r.mu.Unlock()
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("secret result")}}, nil
	})
	r.srv.AddPrompt(ferry.Prompt{Name: "greet", Description: "Greets."}, func(context.Context, *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
		return &ferry.PromptResult{Messages: []ferry.PromptMessage{{Role: "user", Content: ferry.Text("hi")}}}, nil
	})
	r.srv.AddTool(ferry.Tool{Name: "fails", Description: "Fails."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return nil, ferry.Refuse(ferry.RefusalNotFound, "no such order")
	})
	return r
}

// httpServer serves the rig over HTTP behind a middleware that starts an
// HTTP server span, as otelhttp does.
func (r *rig) httpServer(t *testing.T) *httptest.Server {
	t.Helper()
	h := ferry.NewHTTPHandler(r.srv, &ferry.HTTPOptions{Stateful: true})
	tracer := r.tp.Tracer("http")
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ctx, span := tracer.Start(req.Context(), "HTTP "+req.Method, trace.WithSpanKind(trace.SpanKindServer))
		defer span.End()
		h.ServeHTTP(w, req.WithContext(ctx))
	}))
	t.Cleanup(ts.Close)
	return ts
}

func post(t *testing.T, url, session, body string, header ...string) (string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return string(data), resp.Header.Get("Mcp-Session-Id")
}

// span returns the one ended span named name.
func (r *rig) span(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range r.spans.Ended() {
		if s.Name() == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, s := range r.spans.Ended() {
			names = append(names, s.Name())
		}
		t.Fatalf("%d spans named %q; the spans: %q", len(found), name, names)
	}
	return found[0]
}

// attrs returns a span's attributes as a map.
func attrs(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

func sameMap(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %v, want %v", what, got, want)
		return
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v, want %v", what, got, want)
			return
		}
	}
}

// The spans of both eras over HTTP: names, kinds, attributes, status,
// parents (params._meta's trace context, else the HTTP span) and links
// (the HTTP span, when _meta gave the parent).
func TestSpansOverHTTP(t *testing.T) {
	r := newRig(t, nil)
	ts := r.httpServer(t)

	// 2026-07-28: tools/call with a trace context in _meta.
	out, _ := post(t, ts.URL, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"q":"private"},`+modernMeta+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo")
	if !strings.Contains(out, "secret result") {
		t.Fatalf("answer: %s", out)
	}
	call := r.span(t, "tools/call echo")
	if call.SpanKind() != trace.SpanKindServer {
		t.Errorf("kind %v", call.SpanKind())
	}
	sameMap(t, "modern tools/call", attrs(call.Attributes()), map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
		"jsonrpc.request.id": "1", "mcp.protocol.version": "2026-07-28", "network.transport": "tcp", "network.protocol.name": "http",
	})
	if call.Status().Code != codes.Unset {
		t.Errorf("status %v", call.Status())
	}
	if p := call.Parent(); p.TraceID().String() != remoteTrace || p.SpanID().String() != remoteSpan || !p.IsRemote() {
		t.Errorf("parent %v, want the _meta traceparent", p)
	}
	if ts := call.SpanContext().TraceState().Get("rojo"); ts != "1" {
		t.Errorf("tracestate rojo=%q", ts)
	}
	httpSpans := 0
	for _, s := range r.spans.Ended() {
		if s.Name() == "HTTP POST" {
			httpSpans++
			if len(call.Links()) != 1 || call.Links()[0].SpanContext.SpanID() != s.SpanContext().SpanID() {
				t.Errorf("links %v, want the HTTP span %v", call.Links(), s.SpanContext().SpanID())
			}
		}
	}
	if httpSpans != 1 {
		t.Fatalf("%d HTTP spans", httpSpans)
	}
	r.mu.Lock()
	if r.inTool.SpanID() != call.SpanContext().SpanID() || r.baggage != "alice" {
		t.Errorf("the handler ran in span %v with baggage %q; want the MCP span %v and alice", r.inTool.SpanID(), r.baggage, call.SpanContext().SpanID())
	}
	r.mu.Unlock()

	// 2025-03-26 session: initialize, a tool error, a JSON-RPC error.
	_, sess := post(t, ts.URL, "", `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	post(t, ts.URL, sess, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fails","arguments":{}}}`)
	post(t, ts.URL, sess, `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"nope"}}`)
	legacy := map[string]string{"mcp.protocol.version": "2025-03-26", "mcp.session.id": sess, "network.transport": "tcp", "network.protocol.name": "http"}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range legacy {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	init := r.span(t, "initialize")
	sameMap(t, "initialize", attrs(init.Attributes()), with(map[string]string{"mcp.method.name": "initialize", "jsonrpc.request.id": "i"}))
	fails := r.span(t, "tools/call fails")
	sameMap(t, "tool error", attrs(fails.Attributes()), with(map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "fails",
		"gen_ai.operation.name": "execute_tool", "jsonrpc.request.id": "2", "error.type": "tool_error"}))
	if fails.Status().Code != codes.Error {
		t.Errorf("tool error status %v", fails.Status())
	}
	if len(fails.Links()) != 0 || fails.Parent().IsRemote() || !fails.Parent().IsValid() {
		t.Errorf("without _meta the HTTP span is the parent: parent %v links %v", fails.Parent(), fails.Links())
	}
	// An unknown prompt: its name is on its span, not in the span's name
	// nor in the histogram (the client chose it).
	get := r.span(t, "prompts/get")
	sameMap(t, "error answer", attrs(get.Attributes()), with(map[string]string{"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "nope",
		"jsonrpc.request.id": "3", "error.type": "-32602", "rpc.response.status_code": "-32602"}))
	if get.Status().Code != codes.Error || get.Status().Description == "" {
		t.Errorf("error status %v", get.Status())
	}

	// The histogram: one point per attribute set, the conventions' buckets.
	points := r.histogram(t)
	want := []map[string]string{
		{"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool", "mcp.protocol.version": "2026-07-28", "network.transport": "tcp", "network.protocol.name": "http"},
		{"mcp.method.name": "initialize", "mcp.protocol.version": "2025-03-26", "network.transport": "tcp", "network.protocol.name": "http"},
		{"mcp.method.name": "tools/call", "gen_ai.tool.name": "fails", "gen_ai.operation.name": "execute_tool", "mcp.protocol.version": "2025-03-26", "network.transport": "tcp", "network.protocol.name": "http", "error.type": "tool_error"},
		{"mcp.method.name": "prompts/get", "mcp.protocol.version": "2025-03-26", "network.transport": "tcp", "network.protocol.name": "http", "error.type": "-32602", "rpc.response.status_code": "-32602"},
	}
	if len(points) != len(want) {
		t.Fatalf("%d histogram points, want %d: %v", len(points), len(want), points)
	}
	for _, w := range want {
		found := false
		for _, p := range points {
			if a := attrs(p.Attributes.ToSlice()); len(a) == len(w) && mapsEqual(a, w) {
				found = true
				if p.Count != 1 || !slices.Equal(p.Bounds, otelferry.DurationBuckets) || p.Sum <= 0 {
					t.Errorf("point %v: count %d bounds %v sum %v", w, p.Count, p.Bounds, p.Sum)
				}
			}
		}
		if !found {
			t.Errorf("no histogram point %v", w)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}

// histogram returns the data points of mcp.server.operation.duration,
// checking its unit.
func (r *rig) histogram(t *testing.T) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "mcp.server.operation.duration" {
				if m.Unit != "s" || sm.Scope.Name != otelferry.ScopeName {
					t.Errorf("unit %q scope %q", m.Unit, sm.Scope.Name)
				}
				h, ok := m.Data.(metricdata.Histogram[float64])
				if !ok {
					t.Fatalf("data %T", m.Data)
				}
				return h.DataPoints
			}
		}
	}
	t.Fatal("no mcp.server.operation.duration")
	return nil
}

// Over stdio the transport is a pipe, there is no session id, and a
// 2026-07-28 request's _meta parent holds there too.
func TestSpansOverStdio(t *testing.T) {
	r := newRig(t, nil)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + modernMeta + `}}`,
	}, "\n") + "\n"
	var out strings.Builder
	if err := r.srv.Run(context.Background(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	sameMap(t, "stdio tools/call", attrs(r.span(t, "tools/call echo").Attributes()), map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
		"jsonrpc.request.id": "2", "mcp.protocol.version": "2025-06-18", "network.transport": "pipe",
	})
	list := r.span(t, "tools/list")
	sameMap(t, "stdio modern tools/list", attrs(list.Attributes()), map[string]string{
		"mcp.method.name": "tools/list", "jsonrpc.request.id": "3", "mcp.protocol.version": "2026-07-28", "network.transport": "pipe",
	})
	if list.Parent().SpanID().String() != remoteSpan || len(list.Links()) != 0 {
		t.Errorf("parent %v links %v", list.Parent(), list.Links())
	}
}

// Tool arguments and results are recorded only through RecordToolIO,
// as it redacts them.
func TestToolIOIsRecordedOnlyWhenAskedFor(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"card":"4111"}}}`
	run := func(r *rig) sdktrace.ReadOnlySpan {
		in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" + call + "\n"
		if err := r.srv.Run(context.Background(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: io.Discard}); err != nil {
			t.Fatal(err)
		}
		return r.span(t, "tools/call echo")
	}
	for _, kv := range run(newRig(t, nil)).Attributes() {
		if strings.Contains(kv.Value.String(), "4111") || strings.Contains(kv.Value.String(), "secret") || strings.HasPrefix(string(kv.Key), "gen_ai.tool.call.") {
			t.Errorf("recorded without consent: %v", kv)
		}
	}
	var seenArgs, seenResult string
	redacted := run(newRig(t, &otelferry.Options{RecordToolIO: func(info *ferry.RequestInfo, args, result json.RawMessage) (string, string) {
		seenArgs, seenResult = string(args), string(result)
		return strings.ReplaceAll(string(args), "4111", "****"), "[redacted]"
	}}))
	a := attrs(redacted.Attributes())
	if a["gen_ai.tool.call.arguments"] != `{"card":"****"}` || a["gen_ai.tool.call.result"] != "[redacted]" {
		t.Errorf("recorded %v", a)
	}
	if seenArgs != `{"card":"4111"}` || !strings.Contains(seenResult, "secret result") {
		t.Errorf("the hook saw %s and %s", seenArgs, seenResult)
	}
}

// The names otelferry records are those of the conventions' text, a copy
// of which (with its source) is in testdata/semconv-mcp.txt.
func TestNamesArePinnedToTheConventions(t *testing.T) {
	f, err := os.Open("testdata/semconv-mcp.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	facts := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		facts[k] = append(facts[k], v)
	}
	if !strings.Contains(readAll(t, "testdata/semconv-mcp.txt"), "source: https://github.com/open-telemetry/semantic-conventions-genai/blob/") {
		t.Error("the copy does not name its source")
	}
	for _, name := range []string{otelferry.AttrMethodName, otelferry.AttrToolName, otelferry.AttrPromptName, otelferry.AttrResourceURI,
		otelferry.AttrRequestID, otelferry.AttrProtocolVersion, otelferry.AttrSessionID, otelferry.AttrStatusCode, otelferry.AttrErrorType,
		otelferry.AttrOperationName, otelferry.AttrNetworkTransport, otelferry.AttrNetworkProtocol, otelferry.AttrToolCallArguments, otelferry.AttrToolCallResult} {
		if !slices.Contains(facts["attribute"], name) {
			t.Errorf("attribute %q is not in the conventions' server span", name)
		}
	}
	one := func(k string) string {
		if len(facts[k]) != 1 {
			t.Fatalf("%s: %v", k, facts[k])
		}
		return facts[k][0]
	}
	if one("metric") != otelferry.MetricServerDuration || one("error-type-tool") != otelferry.ErrorTypeTool || one("operation-execute-tool") != otelferry.OperationExecuteTool {
		t.Errorf("metric/error type/operation differ: %v", facts)
	}
	var buckets []string
	for _, b := range otelferry.DurationBuckets {
		buckets = append(buckets, strconv.FormatFloat(b, 'g', -1, 64))
	}
	if got := strings.Join(buckets, ", "); got != one("metric-buckets") {
		t.Errorf("buckets %s, want %s", got, one("metric-buckets"))
	}
	// The histogram records only attributes the conventions list for it.
	r := newRig(t, nil)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fails","arguments":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"nope"}}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet"}}` + "\n"
	if err := r.srv.Run(context.Background(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: io.Discard}); err != nil {
		t.Fatal(err)
	}
	for _, p := range r.histogram(t) {
		for _, kv := range p.Attributes.ToSlice() {
			if !slices.Contains(facts["metric-attribute"], string(kv.Key)) {
				t.Errorf("the histogram records %q, which the conventions do not list for it", kv.Key)
			}
		}
	}
	for _, s := range r.spans.Ended() {
		for _, kv := range s.Attributes() {
			if !slices.Contains(facts["attribute"], string(kv.Key)) {
				t.Errorf("span %q records %q, which the conventions do not list", s.Name(), kv.Key)
			}
		}
		if v := attrs(s.Attributes())["network.transport"]; v != one("transport-stdio") {
			t.Errorf("stdio transport %q", v)
		}
	}
}

func readAll(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A task-augmented call's span is the call's: it ends when the task ends,
// not when the task is created, and the handler runs inside it.
func TestTaskSpanEndsWhenTheTaskEnds(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	obs, err := otelferry.New(&otelferry.Options{TracerProvider: tp, MeterProvider: sdkmetric.NewMeterProvider()})
	if err != nil {
		t.Fatal(err)
	}
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), Observer: obs, Tasks: &ferry.TaskOptions{}})
	release := make(chan struct{})
	inTool := make(chan trace.SpanContext, 1)
	srv.AddTool(ferry.Tool{Name: "slow", Description: "Waits.", TaskSupport: ferry.TaskRequired},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			<-release
			inTool <- trace.SpanContextFromContext(ctx)
			return ferry.NewResult(ferry.Text("done")), nil
		})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	defer ts.Close()
	send := func(method, name, params string) map[string]json.RawMessage {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
		out, _ := post(t, ts.URL, "", body, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", method, "Mcp-Name", name)
		var msg struct{ Result map[string]json.RawMessage }
		if err := json.Unmarshal([]byte(out), &msg); err != nil {
			t.Fatalf("%s: %s: %v", method, out, err)
		}
		return msg.Result
	}
	var id string
	_ = json.Unmarshal(send("tools/call", "slow", `"name":"slow","arguments":{}`)["taskId"], &id)
	for _, s := range spans.Ended() {
		if s.Name() == "tools/call slow" {
			t.Fatal("the call's span ended while its task ran")
		}
	}
	close(release)
	sc := <-inTool
	deadline := time.Now().Add(10 * time.Second)
	for {
		var found sdktrace.ReadOnlySpan
		for _, s := range spans.Ended() {
			if s.Name() == "tools/call slow" {
				found = s
			}
		}
		if found != nil {
			if found.SpanContext().SpanID() != sc.SpanID() || found.Status().Code == codes.Error {
				t.Errorf("the span %v (status %v) is not the one the handler ran in, %v", found.SpanContext(), found.Status(), sc)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the call's span did not end within 10s of its task's end")
		}
		time.Sleep(5 * time.Millisecond)
	}
	var status string
	_ = json.Unmarshal(send("tasks/get", id, `"taskId":"`+id+`"`)["status"], &status)
	if status != "completed" {
		t.Errorf("the task reads %q", status)
	}
}
