package ferry_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/ferrytest"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/schema"
	"github.com/google/go-cmp/cmp"
)

// discard silences a server in tests that do not read its log.
var discard = slog.New(slog.DiscardHandler)

// logRecords is a JSON log a test reads back, record by record.
type logRecords struct{ buf ferrytest.Buffer }

func newLogged(t *testing.T, opts *ferry.ServerOptions) (*ferry.Server, *logRecords) {
	t.Helper()
	logs := &logRecords{}
	if opts == nil {
		opts = &ferry.ServerOptions{}
	}
	opts.Logger = slog.New(slog.NewJSONHandler(&logs.buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return ferry.NewServer("s", "1", opts), logs
}

// records returns the records whose message is msg.
func (l *logRecords) records(t *testing.T, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(l.buf.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// callRecord returns the call log's only record.
func (l *logRecords) callRecord(t *testing.T) map[string]any {
	t.Helper()
	recs := l.records(t, "tool call")
	if len(recs) != 1 {
		t.Fatalf("%d call log records, want 1; log:\n%s", len(recs), l.buf.String())
	}
	return recs[0]
}

var refRE = regexp.MustCompile(`\(ref ([0-9a-f]{12})\)`)

// refusing returns a middleware that refuses every call.
func refusing(err error) ferry.ToolMiddleware {
	return func(ferry.ToolHandler) ferry.ToolHandler {
		return func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, err }
	}
}

// A refusal reads the same to the model, and is logged the same, whether
// a middleware or the handler returned it.
func TestMiddlewareRefusalReadsLikeHandlerRefusal(t *testing.T) {
	no := ferry.Forbidden("you may not call secret")
	refuse := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, no }
	pass := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("ran")), nil
	}
	tests := []struct {
		name    string
		mw      []ferry.ToolMiddleware
		handler ferry.ToolHandler
	}{
		{"handler", nil, refuse},
		{"middleware", []ferry.ToolMiddleware{refusing(no)}, pass},
		{"inner middleware", []ferry.ToolMiddleware{func(next ferry.ToolHandler) ferry.ToolHandler { return next }, refusing(no)}, pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, logs := newLogged(t, &ferry.ServerOptions{ToolMiddleware: tt.mw})
			srv.AddTool(ferry.Tool{Name: "secret", Description: "Tells a secret."}, tt.handler)
			res := call(t, srv, "secret", `{}`)
			want := map[string]any{"isError": true, "resultType": "complete",
				"content": []any{map[string]any{"type": "text", "text": "forbidden: you may not call secret"}}}
			delete(res, "_meta")
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			rec := logs.callRecord(t)
			if rec["outcome"] != "refused" || rec["code"] != "forbidden" {
				t.Errorf("call log = %v; want outcome refused, code forbidden", rec)
			}
			if n := len(logs.records(t, "tool failed unexpectedly")); n != 0 {
				t.Errorf("a refusal was logged as %d unexpected failures", n)
			}
		})
	}
}

// A panic in a middleware is a tool failure the model reads, masked behind
// a reference that leads to the logged panic: not a -32603 protocol error.
func TestMiddlewarePanicIsMaskedToolFailure(t *testing.T) {
	boom := func(ferry.ToolHandler) ferry.ToolHandler {
		return func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { panic("middleware bug") }
	}
	srv, logs := newLogged(t, &ferry.ServerOptions{ToolMiddleware: []ferry.ToolMiddleware{boom}})
	srv.AddTool(ferry.Tool{Name: "t", Description: "A tool."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("ran")), nil
	})
	res := call(t, srv, "t", `{}`) // fails the test on a protocol error
	m := refRE.FindStringSubmatch(text(res))
	if res["isError"] != true || m == nil {
		t.Fatalf("result = %v; want a masked isError result with a ref", res)
	}
	fails := logs.records(t, "tool failed unexpectedly")
	if len(fails) != 1 || fails[0]["ref"] != m[1] || fails[0]["tool"] != "t" || fails[0]["level"] != "ERROR" ||
		!strings.Contains(fails[0]["err"].(string), "middleware bug") {
		t.Errorf("logged failures = %v; want one at ERROR with ref %s, tool t and the panic", fails, m[1])
	}
	if rec := logs.callRecord(t); rec["outcome"] != "failed" {
		t.Errorf("call log outcome = %v, want failed", rec["outcome"])
	}
}

// The call log tells how a call ended: an IsError result of a hand-written
// tool is "error", not "ok"; the domain-error hook receives the call's
// context.
func TestCallLogOutcomes(t *testing.T) {
	type ctxKey struct{}
	tests := []struct {
		name    string
		handler ferry.ToolHandler
		want    string
	}{
		{"ok", func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("fine")), nil
		}, "ok"},
		{"isError result", func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewErrorResult("the printer is out of paper"), nil
		}, "error"},
		{"isError result leading with a refusal code", func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewErrorResult("not-found: no order 7"), nil
		}, "refused"},
		{"isError result with an unknown code", func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewErrorResult("oops: no order 7"), nil
		}, "error"},
		{"argument errors of its own", func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewInvalidArgumentsResult(schema.Errors{{Path: "id", Message: "must not be empty"}}), nil
		}, "invalid"},
		{"mapped by OnToolError", func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return nil, errors.New("locked")
		}, "refused"},
		{"unexpected error", func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return nil, errors.New("disk on fire")
		}, "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tagged := func(next ferry.ToolHandler) ferry.ToolHandler {
				return func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
					return next(context.WithValue(ctx, ctxKey{}, "tagged"), req)
				}
			}
			srv, logs := newLogged(t, &ferry.ServerOptions{
				ToolMiddleware: []ferry.ToolMiddleware{tagged},
				OnToolError: func(ctx context.Context, err error) *ferry.ToolResult {
					if _, ok := ferry.CallInfoFromContext(ctx); !ok {
						t.Error("OnToolError's ctx is not the call's")
					}
					if err.Error() == "locked" {
						return ferry.NewErrorResult("conflict: locked")
					}
					return nil
				}})
			srv.AddTool(ferry.Tool{Name: "t", Description: "A tool."}, tt.handler)
			call(t, srv, "t", `{}`)
			if rec := logs.callRecord(t); rec["outcome"] != tt.want || rec["tool"] != "t" {
				t.Errorf("call log = %v; want tool t, outcome %s", rec, tt.want)
			}
		})
	}
}

// A handler that returns an error once the client cancelled the call is
// recorded as canceled at Info level: not masked, not logged as an
// unexpected failure.
func TestCancelledCallIsLoggedAsCanceled(t *testing.T) {
	srv, logs := newLogged(t, nil)
	started := make(chan struct{})
	srv.AddTool(ferry.Tool{Name: "slow", Description: "Waits."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		close(started)
		<-ctx.Done()
		return nil, errors.New("query interrupted") // a driver's own error, not ctx.Err()
	})
	cr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(t.Context(), &ferry.IOTransport{Reader: cr, Writer: io.Discard}) }()
	_, _ = io.WriteString(cw, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`+"\n")
	_, _ = io.WriteString(cw, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`+"\n")
	<-started
	_, _ = io.WriteString(cw, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`+"\n")
	cw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	rec := logs.callRecord(t)
	if rec["outcome"] != "canceled" || rec["level"] != "INFO" {
		t.Errorf("call log = %v; want outcome canceled at INFO", rec)
	}
	if n := len(logs.records(t, "tool failed unexpectedly")); n != 0 {
		t.Errorf("a cancelled call was logged as %d unexpected failures:\n%s", n, logs.buf.String())
	}
}

// Structured content that cannot be encoded is a masked tool failure whose
// reference leads to the logged error, not a bare -32603.
func TestUnencodableStructuredContentIsMaskedFailure(t *testing.T) {
	srv, logs := newLogged(t, nil)
	srv.AddTool(ferry.Tool{Name: "t", Description: "A tool."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("x")}, StructuredContent: map[string]any{"c": make(chan int)}}, nil
	})
	res := call(t, srv, "t", `{}`)
	m := refRE.FindStringSubmatch(text(res))
	if res["isError"] != true || m == nil || res["structuredContent"] != nil {
		t.Fatalf("result = %v; want a masked isError result and no structuredContent", res)
	}
	fails := logs.records(t, "tool failed unexpectedly")
	if len(fails) != 1 || fails[0]["ref"] != m[1] || !strings.Contains(fails[0]["err"].(string), "structured content") {
		t.Errorf("logged failures = %v; want one with ref %s about the structured content", fails, m[1])
	}
	if rec := logs.callRecord(t); rec["outcome"] != "failed" {
		t.Errorf("call log outcome = %v, want failed", rec["outcome"])
	}
}

// A prompt that fails unexpectedly answers -32603 whose message and data
// carry the reference of the logged error, so that a user can quote it.
func TestPromptFailureCarriesLoggedRef(t *testing.T) {
	srv, logs := newLogged(t, nil)
	srv.AddPrompt(ferry.Prompt{Name: "p", Description: "A prompt."}, func(context.Context, *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
		return nil, errors.New("template store down")
	})
	in := `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p",` + modernMeta + `}}` + "\n"
	var out strings.Builder
	if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Error struct {
			Code    int
			Message string
			Data    struct{ Ref string }
		}
	}
	if err := json.Unmarshal([]byte(out.String()), &msg); err != nil {
		t.Fatal(err)
	}
	fails := logs.records(t, "prompt failed")
	if msg.Error.Code != -32603 || msg.Error.Data.Ref == "" || !strings.Contains(msg.Error.Message, msg.Error.Data.Ref) ||
		len(fails) != 1 || fails[0]["ref"] != msg.Error.Data.Ref {
		t.Errorf("answer %s, logged %v; want -32603 whose data.ref is the logged ref", out.String(), fails)
	}
}
