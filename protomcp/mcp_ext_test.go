package protomcp_test

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

	"connectrpc.com/connect"
	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/protomcp"
	"github.com/ferry-mcp/ferry/protomcp/internal/testservice"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// shop is the test service compiled once, with its spec.
type shop struct {
	files *protoregistry.Files
	sd    protoreflect.ServiceDescriptor
	spec  *protomcp.ServiceSpec
}

var (
	shopOnce sync.Once
	shopVal  shop
	shopErr  error
)

func testShop(t testing.TB) shop {
	t.Helper()
	shopOnce.Do(func() {
		shopVal.files, shopVal.sd, shopErr = testservice.Files(context.Background())
		if shopErr == nil {
			shopVal.spec, shopErr = protomcp.Describe(shopVal.sd, nil)
		}
	})
	if shopErr != nil {
		t.Fatal(shopErr)
	}
	return shopVal
}

// mcpServer is a ferry server with the shop registered, behind its real
// HTTP handler, with its logs kept.
type mcpServer struct {
	srv   *ferry.Server
	logs  *syncBuffer
	h     http.Handler
	calls *testservice.Calls
}

// newShopServer registers the shop's tools dispatched through its Connect
// handler, built with the handler options given (interceptors).
func newShopServer(t testing.TB, opts *protomcp.Options, hopts ...connect.HandlerOption) *mcpServer {
	t.Helper()
	s := testShop(t)
	m := newMCPServer()
	m.calls = new(testservice.Calls)
	o := protomcp.Options{Files: s.files}
	if opts != nil {
		o = *opts
		o.Files = s.files
	}
	if err := protomcp.AddService(m.srv, s.spec, protomcp.Handler(testservice.Handler(s.sd, m.calls, hopts...)), &o); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	return m
}

func newMCPServer() *mcpServer {
	logs := new(syncBuffer)
	srv := ferry.NewServer("protomcp-test", "1.0.0", &ferry.ServerOptions{
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Limits: ferry.Limits{MaxCallsPerCaller: -1, CallRate: -1},
	})
	return &mcpServer{srv: srv, logs: logs}
}

func (m *mcpServer) serve(t testing.TB) {
	t.Helper()
	if err := m.srv.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	m.h = ferry.NewHTTPHandler(m.srv, nil)
}

// result is a tools/call's outcome as a client reads it.
type result struct {
	Text       string
	Structured json.RawMessage
	IsError    bool
	RPCError   string
}

// call calls tool with args in the modern era, with the extra header pairs.
func (m *mcpServer) call(t testing.TB, tool, args string, header ...string) result {
	t.Helper()
	params := fmt.Sprintf(`{"name":%q,"arguments":%s,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`, tool, args)
	data := m.post(t, "tools/call", tool, params, header...)
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
		t.Errorf("tools/call answered %s: %v", data, err)
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

// rpc sends one modern request and returns the answer's JSON.
func (m *mcpServer) rpc(t testing.TB, method, name, params string) []byte {
	t.Helper()
	return m.post(t, method, name, params)
}

func (m *mcpServer) post(t testing.TB, method, name, params string, header ...string) []byte {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":` + params + `}`
	req := httptest.NewRequestWithContext(t.Context(), "POST", "/mcp", strings.NewReader(body))
	req.Host = "127.0.0.1"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
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

// addShop registers the shop dispatched through its Connect handler.
func addShop(m *mcpServer, s shop) error {
	m.calls = new(testservice.Calls)
	return protomcp.AddService(m.srv, s.spec, protomcp.Handler(testservice.Handler(s.sd, m.calls)), &protomcp.Options{Files: s.files})
}
