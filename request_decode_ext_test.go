package ferry_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// echoServer serves the tool echo, which answers "ran" and hands its
// arguments to got, if not nil.
func echoServer(got func(json.RawMessage)) *ferry.Server {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddTool(ferry.Tool{Name: "echo", Description: "Echoes."}, func(_ context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		if got != nil {
			got(req.Arguments)
		}
		return ferry.NewResult(ferry.Text("ran")), nil
	})
	return srv
}

// stdioAnswer serves line after a 2025-03-26 initialize on stdio and
// returns the answer to it.
func stdioAnswer(t *testing.T, srv *ferry.Server, line string) string {
	t.Helper()
	var out strings.Builder
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}` + "\n" + line + "\n"
	if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return lines[len(lines)-1]
}

// The params members Ferry reads are matched exactly and read once: a
// case variant ("NAME", which encoding/json takes for "name") and a
// member sent twice are refused as invalid params, so that an
// intermediary reading the body with another decoder cannot be shown one
// call while Ferry serves another. A member of the wrong type is refused
// naming it. The arguments object is the tool's: its members may be
// anything.
func TestParamsMembersAreMatchedExactlyAndOnce(t *testing.T) {
	srv := echoServer(nil)
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	refused := func(msg string) string {
		return `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"invalid params: ` + msg + `"}}`
	}
	const served = `"text":"ran"`
	tests := []struct{ name, params, want string }{
		{"case variant", `{"NAME":"echo"}`, refused(`\"NAME\" is not a member; the member is \"name\"`)},
		{"case variant beside the member", `{"name":"echo","Name":"other"}`, refused(`\"Name\" is not a member; the member is \"name\"`)},
		{"arguments variant", `{"name":"echo","Arguments":{}}`, refused(`\"Arguments\" is not a member; the member is \"arguments\"`)},
		{"name twice", `{"name":"other","name":"echo"}`, refused(`\"name\" is sent twice`)},
		{"escaped name twice", `{"name":"echo","na\u006de":"echo"}`, refused(`\"name\" is sent twice`)},
		{"progress token twice", `{"name":"echo","_meta":{"progressToken":1,"progressToken":2}}`,
			refused(`_meta field \"progressToken\" is sent twice`)},
		{"progress token variant", `{"name":"echo","_meta":{"progresstoken":1}}`,
			refused(`_meta field \"progresstoken\" is not a member; the member is \"progressToken\"`)},
		{"name not a string", `{"name":5}`, refused(`\"name\" must be a string`)},
		{"_meta not an object", `{"name":"echo","_meta":[]}`, refused(`\"_meta\" must be an object`)},
		{"log level not a string", `{"name":"echo","_meta":{"io.modelcontextprotocol/logLevel":1}}`,
			refused(`_meta field \"io.modelcontextprotocol/logLevel\" must be a string`)},
		{"cold member of the wrong type", `{"name":"echo","ref":{"type":1}}`, refused(`\"ref.type\" must be a string`)},
		{"escaped name", `{"na\u006de":"echo"}`, served},
		{"null name", `{"name":"echo","uri":null,"cursor":null,"_meta":null}`, served},
		{"arguments' members are the tool's", `{"name":"echo","arguments":{"NAME":1,"name":2,"name":3}}`, served},
		{"other members are ignored", `{"name":"echo","nombre":"x","_meta":{"other":1,"Other":2}}`, served},
	}
	init := send(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	sid := init.header.Get("Mcp-Session-Id")
	for _, tt := range tests {
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":` + tt.params + `}`
		check := func(t *testing.T, got string) {
			if tt.want == served && !strings.Contains(got, served) || tt.want != served && got != tt.want {
				t.Errorf("%s\nwant %s", got, tt.want)
			}
		}
		t.Run("HTTP/"+tt.name, func(t *testing.T) {
			got := send(t, ts.URL, body, "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25")
			check(t, strings.TrimSpace(got.body))
		})
		t.Run("stdio/"+tt.name, func(t *testing.T) { check(t, stdioAnswer(t, srv, body)) })
	}
}

// A batch that is not JSON is a parse error, as a single message that is
// not JSON is, before the session is looked at; an empty batch is an
// invalid request.
func TestBatchThatIsNotJSONIsAParseError(t *testing.T) {
	srv := echoServer(nil)
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	const (
		parse = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message is not valid JSON"}}`
		empty = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"jsonrpc: empty batch"}}`
	)
	init := send(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}`)
	sid := init.header.Get("Mcp-Session-Id")
	for body, want := range map[string]string{
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},`:  parse,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]]`: parse,
		`[]`: empty,
	} {
		got := send(t, ts.URL, body, "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-03-26")
		if got.status != 400 || strings.TrimSpace(got.body) != want {
			t.Errorf("HTTP %s: %d %s\nwant 400 %s", body, got.status, got.body, want)
		}
		if got := stdioAnswer(t, srv, body); got != want {
			t.Errorf("stdio %s: %s\nwant %s", body, got, want)
		}
	}
}

// A tool handler may keep its arguments after it returns: they are its
// own, not a view of the request body's buffer, which the HTTP handler
// reuses for the next request, nor of a line a connection reuses.
func TestArgumentsOutliveTheRequest(t *testing.T) {
	var mu sync.Mutex
	var kept []json.RawMessage
	srv := echoServer(func(args json.RawMessage) {
		mu.Lock()
		kept = append(kept, args)
		mu.Unlock()
	})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	call := func(i int) string {
		return `{"jsonrpc":"2.0","id":` + string(rune('1'+i)) + `,"method":"tools/call","params":{"name":"echo","arguments":{"n":"` +
			strings.Repeat(string(rune('a'+i)), 20) + `"}}}`
	}
	init := send(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`)
	sid := init.header.Get("Mcp-Session-Id")
	for i := range 3 {
		send(t, ts.URL, call(i), "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-06-18")
	}
	conn := &reusingConn{lines: []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
		call(3), call(4), call(5)}}
	if err := srv.Run(t.Context(), conn); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(kept) != 6 {
		t.Fatalf("%d calls served, want 6", len(kept))
	}
	seen := map[string]bool{}
	for _, args := range kept {
		seen[string(args)] = true
	}
	for i := range 6 {
		if want := `{"n":"` + strings.Repeat(string(rune('a'+i)), 20) + `"}`; !seen[want] {
			t.Errorf("arguments %s were overwritten: kept %q", want, kept)
		}
	}
}

// reusingConn is a Connection that reads its lines into one buffer, as a
// connection may, and waits for the answers before it ends.
type reusingConn struct {
	lines   []string
	buf     []byte
	mu      sync.Mutex
	answers int
	done    chan struct{}
}

func (c *reusingConn) Connect(context.Context) (ferry.Connection, error) {
	c.done = make(chan struct{})
	return c, nil
}

func (c *reusingConn) Read(ctx context.Context) ([]byte, error) {
	if len(c.lines) == 0 {
		select {
		case <-c.done:
		case <-ctx.Done():
		}
		return nil, io.EOF
	}
	c.buf = append(c.buf[:0], c.lines[0]...)
	c.lines = c.lines[1:]
	return c.buf, nil
}

func (c *reusingConn) Write(_ context.Context, msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.answers++; c.answers == 4 {
		close(c.done)
	}
	return nil
}

func (c *reusingConn) Close() error { return nil }
