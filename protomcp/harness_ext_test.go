package protomcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"connectrpc.com/connect"
	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
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
// HTTP handler, with its logs kept. Tests call it through ferrytest's
// client, in the modern era.
type mcpServer struct {
	srv    *ferry.Server
	logs   *ferrytest.Buffer
	h      http.Handler
	client *ferrytest.Client // for calls without extra headers
	calls  *testservice.Calls
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
	logs := new(ferrytest.Buffer)
	srv := ferry.NewServer("protomcp-test", "1.0.0", &ferry.ServerOptions{
		Logger: logs.Logger(),
		// The result budget is the core's to test; the attacks here bound
		// refusals themselves.
		Limits: ferry.Limits{MaxCallsPerCaller: -1, CallRate: -1, MaxResultBytes: -1},
	})
	return &mcpServer{srv: srv, logs: logs}
}

// serve builds the HTTP handler and connects a client; it fails t when
// the server's start-up check fails.
func (m *mcpServer) serve(t testing.TB) {
	t.Helper()
	if err := m.srv.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	m.h = ferry.NewHTTPHandler(m.srv, nil)
	m.client = ferrytest.DialHandler(t, m.h, nil)
}

// result is a tools/call's outcome as a client reads it.
type result struct {
	Text       string
	Structured json.RawMessage
	IsError    bool
	RPCError   string
}

// call calls tool with args (a JSON object, or null). Extra header pairs
// are sent with every request of a connection of their own, made on the
// caller's goroutine. Without them, it reports failures with t.Errorf, so
// it may run on any goroutine.
func (m *mcpServer) call(t testing.TB, tool, args string, header ...string) result {
	t.Helper()
	c := m.client
	if len(header) > 0 {
		h := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			h.Add(header[i], header[i+1])
		}
		c = ferrytest.DialHandler(t, m.h, &ferrytest.Options{Header: h})
	}
	// Call, not CallTool, so that the arguments go as the test wrote
	// them, null included.
	params := map[string]any{"name": tool, "arguments": json.RawMessage(args)}
	var raw json.RawMessage
	if err := c.Raw().Call(t.Context(), "tools/call", params, &raw); err != nil {
		t.Errorf("tools/call %s: %v", tool, err)
		return result{RPCError: err.Error()}
	}
	var res struct {
		Content           []struct{ Text string }
		StructuredContent json.RawMessage
		IsError           bool
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Errorf("tools/call %s answered %s: %v", tool, raw, err)
		return result{}
	}
	r := result{Structured: res.StructuredContent, IsError: res.IsError}
	for _, c := range res.Content {
		r.Text += c.Text
	}
	return r
}

// addShop registers the shop dispatched through its Connect handler.
func addShop(m *mcpServer, s shop) error {
	m.calls = new(testservice.Calls)
	return protomcp.AddService(m.srv, s.spec, protomcp.Handler(testservice.Handler(s.sd, m.calls)), &protomcp.Options{Files: s.files})
}
