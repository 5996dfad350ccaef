package ferry

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"

	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
)

// A panicking handler leaves what the buffer held before the response:
// serve answers -32603 with a ref after it, so a caller that appends
// several responses into one buffer (a batch) keeps the earlier ones.
func TestServeKeepsBufferAfterPanic(t *testing.T) {
	srv := NewServer("s", "1", &ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	srv.AddPrompt(Prompt{Name: "p", Description: "Panics."}, func(context.Context, *GetPromptRequest) (*PromptResult, error) {
		panic("bug")
	})
	r := newRequest(context.Background(), &jsonrpc.Message{ID: json.RawMessage("1"), Method: "prompts/get"}, &wireParams{Name: "p"}, peer{})
	r.version = Version20251125
	srv.resolve(r)
	b := srv.serve(r.context(), r, []byte(`{"earlier":1},`))
	if !strings.HasPrefix(string(b), `{"earlier":1},{"jsonrpc":"2.0"`) || !strings.Contains(string(b), `"code":-32603`) ||
		!strings.Contains(string(b), "ref ") {
		t.Errorf("serve after a panic = %q; want the earlier response kept, then -32603 with a ref", b)
	}
}

// The path of a tools/call is short and held to docs/architecture.md: from
// the transport to the handler's wrapper, a 2026-07-28 call over HTTP
// passes post, postModern, respond, serve and callTool (six calls from
// ServeHTTP), a call of a stateful legacy session postLegacy instead of
// postModern, and over stdio the worker's request passes answer, serve and
// callTool. A call added on the way shows here first.
func TestToolsCallPath(t *testing.T) {
	tests := []struct {
		name, from string
		want       []string
	}{
		{"http", "(*HTTPHandler).ServeHTTP", []string{"(*HTTPHandler).post", "(*HTTPHandler).postModern",
			"(*HTTPHandler).respond", "(*Server).serve", "(*Server).callTool", "recoverAndMap.func1"}},
		{"http-legacy", "(*HTTPHandler).ServeHTTP", []string{"(*HTTPHandler).post", "(*HTTPHandler).postLegacy",
			"(*HTTPHandler).respond", "(*Server).serve", "(*Server).callTool", "recoverAndMap.func1"}},
		{"stdio", "(*streamConn).request.func1", []string{"(*streamConn).answer", "(*Server).serve",
			"(*Server).callTool", "recoverAndMap.func1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var chain []string
			srv := pathServer(func() { chain = callChain(tt.from) })
			callOnce(t, srv, tt.name)
			if len(chain) != len(tt.want) {
				t.Fatalf("from %s to the tool's handler: %d calls %q; want %d %q", tt.from, len(chain), chain, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.HasSuffix(chain[i], w) {
					t.Errorf("call %d is %s, want %s", i+1, chain[i], w)
				}
			}
		})
	}
}

const pathBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// pathServer serves one tool, t, whose handler calls f.
func pathServer(f func()) *Server {
	srv := NewServer("s", "1", nil)
	srv.AddTool(Tool{Name: "t", Description: "Marks the path."}, func(context.Context, *CallToolRequest) (*ToolResult, error) {
		f()
		return nil, nil
	})
	return srv
}

// newPathRequest returns the HTTP request of a 2026-07-28 tools/call of t.
func newPathRequest() *http.Request {
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(pathBody))
	req.Host = "localhost"
	req.Header.Set("MCP-Protocol-Version", Version20260728)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "t")
	return req
}

// callOnce makes one tools/call of t over HTTP or stdio, a 2026-07-28 one
// or, for "http-legacy", one of a stateful 2025-11-25 session.
func callOnce(t *testing.T, srv *Server, transport string) {
	t.Helper()
	if transport == "http-legacy" {
		h := NewHTTPHandler(srv, &HTTPOptions{Stateful: true})
		post := func(body, session string) *httptest.ResponseRecorder {
			req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
			req.Host = "localhost"
			req.Header.Set("Accept", "application/json, text/event-stream")
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
				req.Header.Set("MCP-Protocol-Version", Version20251125)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		opened := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, "")
		session := opened.Header().Get("Mcp-Session-Id")
		if session == "" {
			t.Fatalf("initialize failed: %s", opened.Body)
		}
		if rec := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}}`, session); !strings.Contains(rec.Body.String(), `"result"`) {
			t.Fatalf("the call failed: %s", rec.Body)
		}
		return
	}
	if transport == "http" {
		rec := httptest.NewRecorder()
		NewHTTPHandler(srv, nil).ServeHTTP(rec, newPathRequest())
		if !strings.Contains(rec.Body.String(), `"result"`) {
			t.Fatalf("the call failed: %s", rec.Body)
		}
		return
	}
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write([]byte(pathBody + "\n"))
		pw.Close()
	}()
	if err := srv.Run(t.Context(), &IOTransport{Reader: pr, Writer: io.Discard}); err != nil {
		t.Fatal(err)
	}
}

// callChain returns the functions between the frame whose function ends
// with from and the tool's handler (which calls callChain through a func),
// outermost first.
func callChain(from string) []string {
	pc := make([]uintptr, 64)
	frames := runtime.CallersFrames(pc[:runtime.Callers(4, pc)])
	var inner []string
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, from) {
			break
		}
		inner = append(inner, f.Function)
		if !more {
			return nil
		}
	}
	out := make([]string, len(inner))
	for i, f := range inner {
		out[len(inner)-1-i] = f
	}
	return out
}
