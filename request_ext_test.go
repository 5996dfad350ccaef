package ferry_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// nested returns a tools/call whose arguments nest n levels deep.
func nested(n int) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"v":` +
		strings.Repeat("[", n) + strings.Repeat("]", n) + `}}}`
}

// Messages nested past MaxJSONDepth, and envelopes that repeat a member or
// carry a case variant of one, are refused before they are decoded, on
// HTTP (400) and on stdio, with no handler run; 100,000 levels is no
// trouble.
func TestMalformedEnvelopesAreRefused(t *testing.T) {
	var runs atomic.Int32
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddTool(ferry.Tool{Name: "echo", Description: "Echoes."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		runs.Add(1)
		return ferry.NewResult(ferry.Text("ran")), nil
	})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	const tooDeep = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message nests arrays and objects more than 64 levels deep"}}`
	tests := []struct{ name, body, want string }{
		{"100,000 deep", nested(100_000), tooDeep},
		{"one past the limit", nested(62), tooDeep},
		{"method twice", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"echo"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: invalid envelope member: \"method\" is sent twice"}}`},
		{"case variant", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/call","params":{"name":"echo"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: invalid envelope member: \"Method\" is not a member; the member is \"method\""}}`},
		{"batch", `[` + nested(100_000) + `]`, tooDeep},
	}
	for _, tt := range tests {
		t.Run("HTTP/"+tt.name, func(t *testing.T) {
			got := send(t, ts.URL, tt.body, "Mcp-Protocol-Version", "2025-03-26")
			if got.status != 400 || strings.TrimSpace(got.body) != tt.want {
				t.Errorf("%d %s\nwant 400 %s", got.status, got.body, tt.want)
			}
		})
		t.Run("stdio/"+tt.name, func(t *testing.T) {
			var out strings.Builder
			in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}` + "\n" + tt.body + "\n"
			if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if got := lines[len(lines)-1]; got != tt.want {
				t.Errorf("%s\nwant %s", got, tt.want)
			}
		})
	}
	if runs.Load() != 0 {
		t.Errorf("%d handlers ran", runs.Load())
	}
	var out strings.Builder
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}` + "\n" + nested(61) + "\n"
	if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"text":"ran"`) {
		t.Errorf("a message 64 levels deep: %s", out.String())
	}
}

// A 2026-07-28 request's _meta sets its log threshold: the handler's logs
// at or above it reach the client, those below do not, none do without
// one, and a level the protocol does not name is refused with -32602,
// the tool unrun.
func TestModernLogLevelIsTheRequests(t *testing.T) {
	var runs atomic.Int32
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddTool(ferry.Tool{Name: "logs", Description: "Logs twice."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		runs.Add(1)
		_ = ferry.NotifyLog(ctx, ferry.LevelInfo, "t", "an info")
		_ = ferry.NotifyLog(ctx, ferry.LevelWarning, "t", "a warning")
		return ferry.NewResult(ferry.Text("done")), nil
	})
	call := func(level string) string {
		meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
		if level != "" {
			meta += `,"io.modelcontextprotocol/logLevel":"` + level + `"`
		}
		var out strings.Builder
		in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"logs","arguments":{},"_meta":{` + meta + `}}}` + "\n"
		if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	tests := []struct {
		level         string
		info, warning bool
	}{{"", false, false}, {"warning", false, true}, {"debug", true, true}}
	for _, tt := range tests {
		out := call(tt.level)
		if !strings.Contains(out, `"done"`) || strings.Contains(out, "an info") != tt.info || strings.Contains(out, "a warning") != tt.warning {
			t.Errorf("logLevel %q: got %s; want the info log %v, the warning %v", tt.level, out, tt.info, tt.warning)
		}
	}
	before := runs.Load()
	if out := call("loud"); !strings.Contains(out, `"code":-32602`) || !strings.Contains(out, "unknown log level") || runs.Load() != before {
		t.Errorf("an unknown log level: %s (ran %d times more); want -32602 and the tool unrun", out, runs.Load()-before)
	}
}
