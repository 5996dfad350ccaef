package ferry_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry"
)

type obsKey struct{}

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu   sync.Mutex
	seen []observed
}

type observed struct {
	info ferry.RequestInfo
	end  ferry.RequestEnd
	ctx  any // the value Start put in the context, as End saw it
}

func (o *recorder) Start(ctx context.Context, info *ferry.RequestInfo) context.Context {
	return context.WithValue(ctx, obsKey{}, "span of "+info.Method)
}

func (o *recorder) End(ctx context.Context, info *ferry.RequestInfo, end ferry.RequestEnd) {
	o.mu.Lock()
	defer o.mu.Unlock()
	end.Result = append([]byte(nil), end.Result...) // valid only during End
	o.seen = append(o.seen, observed{info: *info, end: end, ctx: ctx.Value(obsKey{})})
}

func (o *recorder) byMethod(t *testing.T, method string) observed {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range o.seen {
		if s.info.Method == method {
			return s
		}
	}
	t.Fatalf("%s was not observed; observed: %v", method, o.seen)
	return observed{}
}

func observedServer(o ferry.Observer) *ferry.Server {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, Observer: o})
	srv.AddTool(ferry.Tool{Name: "echo", Description: "Echoes; says which span it runs in."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		span, _ := ctx.Value(obsKey{}).(string)
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("in " + span)}}, nil
	})
	srv.AddTool(ferry.Tool{Name: "fails", Description: "Fails."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return nil, ferry.Refuse(ferry.RefusalNotFound, "no such order")
	})
	return srv
}

// The observer sees each request's facts over HTTP, in both eras, and
// the context it returns from Start is the handler's.
func TestObserverOverHTTP(t *testing.T) {
	o := &recorder{}
	ts := httptest.NewServer(ferry.NewHTTPHandler(observedServer(o), &ferry.HTTPOptions{Stateful: true}))
	defer ts.Close()

	body, hd := modernToolCall(`"m-1"`, "echo")
	body = strings.Replace(body, `"_meta":{`, `"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"rojo=1","baggage":"user=alice",`, 1)
	if ans := openStream(t, "POST", ts.URL, "", body, hd...).next(); !strings.Contains(ans, "in span of tools/call") {
		t.Fatalf("the handler's context is not Start's: %s", ans)
	}
	got := o.byMethod(t, "tools/call")
	want := ferry.RequestInfo{Method: "tools/call", Name: "echo", Target: ferry.TargetTool, ID: "m-1", ProtocolVersion: "2026-07-28", Modern: true,
		Transport: ferry.TransportHTTP, Trace: ferry.TraceContext{TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", TraceState: "rojo=1", Baggage: "user=alice"},
		Arguments: []byte("{}")}
	if got.info.Method != want.Method || got.info.Name != want.Name || got.info.Target != want.Target || got.info.ID != want.ID || got.info.ProtocolVersion != want.ProtocolVersion ||
		got.info.Modern != want.Modern || got.info.Transport != want.Transport || got.info.Trace != want.Trace ||
		string(got.info.Arguments) != "{}" || got.info.SessionID != "" {
		t.Errorf("info = %+v\nwant %+v", got.info, want)
	}
	if got.end.ErrorCode != 0 || got.end.ToolError || !strings.Contains(string(got.end.Result), `"in span of tools/call"`) ||
		!strings.HasPrefix(string(got.end.Result), "{") || !strings.HasSuffix(string(got.end.Result), "}") || got.end.Duration <= 0 {
		t.Errorf("end = %+v (result %s)", got.end, got.end.Result)
	}
	if got.ctx != "span of tools/call" {
		t.Errorf("End's context: %v", got.ctx)
	}

	sess := initLegacy(t, ts.URL, `{}`)
	o.mu.Lock()
	o.seen = nil
	o.mu.Unlock()
	post(t, ts.URL, "", sess, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fails","arguments":{}}}`)
	post(t, ts.URL, "", sess, `{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"nope"}}`)
	call := o.byMethod(t, "tools/call")
	if call.info.SessionID != sess || call.info.Modern || call.info.ProtocolVersion != "2025-03-26" || call.info.ID != "5" || !call.end.ToolError || call.end.ErrorCode != 0 {
		t.Errorf("the legacy tool error: %+v %+v", call.info, call.end)
	}
	get := o.byMethod(t, "prompts/get")
	if get.end.ErrorCode == 0 || get.end.ErrorMessage == "" || get.end.Result != nil || get.info.Name != "nope" || get.info.Target != ferry.TargetPrompt {
		t.Errorf("the error answer: %+v", get.end)
	}
}

// On stdio the transport is stdio and there is no session id.
func TestObserverOverStdio(t *testing.T) {
	o := &recorder{}
	c := startStdio(t, observedServer(o))
	c.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`)
	if ans := c.next(t); !strings.Contains(ans, "in span of tools/call") {
		t.Fatalf("answer: %s", ans)
	}
	got := o.byMethod(t, "tools/call")
	if got.info.Transport != ferry.TransportStdio || got.info.SessionID != "" || got.info.ID != "3" || got.info.ProtocolVersion != "2025-06-18" || string(got.info.Arguments) != `{"a":1}` {
		t.Errorf("info = %+v", got.info)
	}
	if init := o.byMethod(t, "initialize"); init.end.ErrorCode != 0 || init.info.ID != "0" {
		t.Errorf("initialize: %+v", init)
	}
	c.close()
}
