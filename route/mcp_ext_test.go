package route_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// era is how a test speaks MCP to the server.
type era string

const (
	modern era = "2026-07-28" // no handshake; _meta and Mcp-Method/Mcp-Name headers
	legacy era = "2025-11-25" // initialize, then Mcp-Session-Id
)

var eras = []era{modern, legacy}

// mcpServer is a ferry server behind its real HTTP handler, with an
// authenticator in front (X-User sets the principal) and its logs kept.
type mcpServer struct {
	srv  *ferry.Server
	logs *syncBuffer
	h    http.Handler
}

// newMCPServer returns a server whose logs are kept; add tools, then call
// serve.
func newMCPServer(t *testing.T) *mcpServer {
	t.Helper()
	logs := new(syncBuffer)
	srv := ferry.NewServer("route-test", "1.0.0", &ferry.ServerOptions{
		Logger:      slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		SigningKeys: [][]byte{[]byte("route-test-key")},
		// One anonymous caller sends every test's calls, some hundreds at
		// once: the per-caller limits are the core's to test, not these.
		Limits: ferry.Limits{MaxCallsPerCaller: -1, CallRate: -1},
	})
	return &mcpServer{srv: srv, logs: logs}
}

// serve builds the HTTP handler; it fails t when the server's start-up
// check fails.
func (m *mcpServer) serve(t *testing.T) {
	t.Helper()
	if err := m.srv.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	inner := ferry.NewHTTPHandler(m.srv, nil)
	m.h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user := r.Header.Get("X-User"); user != "" {
			r = r.WithContext(ferry.WithPrincipal(r.Context(), &ferry.Principal{Subject: user}))
		}
		inner.ServeHTTP(w, r)
	})
}

// result is a tools/call's outcome as a client reads it.
type result struct {
	Text       string          // the text blocks, joined
	Structured json.RawMessage // structuredContent
	IsError    bool
	RPCError   string // a JSON-RPC error's message
}

// call calls tool with args (a JSON object) in era e, sending the extra
// header pairs with the tools/call. It reports failures with t.Errorf, so
// it may run on any goroutine.
func (m *mcpServer) call(t *testing.T, e era, tool, args string, header ...string) result {
	t.Helper()
	return m.callContext(t.Context(), t, e, tool, args, header...)
}

func (m *mcpServer) callContext(ctx context.Context, t *testing.T, e era, tool, args string, header ...string) result {
	t.Helper()
	params := fmt.Sprintf(`{"name":%q,"arguments":%s`, tool, args)
	hdr := []string{"Mcp-Protocol-Version", string(e)}
	if e == modern {
		params += `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		hdr = append(hdr, "Mcp-Method", "tools/call", "Mcp-Name", tool)
	} else {
		hdr = append(hdr, "Mcp-Session-Id", m.initialize(t, header...))
	}
	body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":` + params + `}}`
	data := m.post(ctx, t, body, append(hdr, header...)...)
	var msg struct {
		Result *struct {
			Content []struct {
				Type, Text string
			}
			StructuredContent json.RawMessage
			IsError           bool
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		t.Errorf("tools/call answered %s: %v", data, err) // not Fatal: calls may run on other goroutines
		return result{}
	}
	var r result
	if msg.Error != nil {
		r.RPCError = msg.Error.Message
		return r
	}
	if msg.Result == nil {
		t.Errorf("tools/call answered %s", data)
		return r
	}
	for _, c := range msg.Result.Content {
		r.Text += c.Text
	}
	r.Structured, r.IsError = msg.Result.StructuredContent, msg.Result.IsError
	return r
}

// initialize opens a legacy session and returns its id.
func (m *mcpServer) initialize(t *testing.T, header ...string) string {
	t.Helper()
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	setHeaders(req, header...)
	w := httptest.NewRecorder()
	m.h.ServeHTTP(w, req)
	id := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || id == "" {
		t.Errorf("initialize: %d %s", w.Code, w.Body)
	}
	return id
}

// post sends one JSON-RPC message and returns the answer's JSON (the data
// of an event stream's message, if the answer is one).
func (m *mcpServer) post(ctx context.Context, t *testing.T, body string, header ...string) []byte {
	t.Helper()
	req := httptest.NewRequestWithContext(ctx, "POST", "/mcp", strings.NewReader(body))
	setHeaders(req, header...)
	w := httptest.NewRecorder()
	m.h.ServeHTTP(w, req)
	data, _ := io.ReadAll(w.Body)
	if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		for line := range strings.Lines(string(data)) {
			if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id":2`) {
				return []byte(d)
			}
		}
	}
	if w.Code != http.StatusOK {
		t.Errorf("POST /mcp: %d %s", w.Code, data)
	}
	return data
}

func setHeaders(req *http.Request, header ...string) {
	req.Host = "127.0.0.1"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// records returns the JSON log records whose msg is msg.
func (b *syncBuffer) records(t *testing.T, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(b.String()) {
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
