package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
)

// A client in the default mode falls back from server/discover to
// initialize against a server limited to legacy versions, and asks for the
// newest one the server offers; a forced version the server lacks fails.
func TestClientFallsBackToLegacy(t *testing.T) {
	legacyOnly := &ferry.ServerOptions{ProtocolVersions: []string{ferry.Version20250618, ferry.Version20250326}}
	for _, d := range dialers() {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			c := connect(t, d, answers(""), legacyOnly, &ferry.HTTPOptions{Stateful: true})
			if c.Protocol() != client.Version20250618 || c.Modern() {
				t.Fatalf("Protocol() = %q, want %s", c.Protocol(), client.Version20250618)
			}
			if res, err := c.CallTool(t.Context(), "confirm", nil); err != nil || res.Text() != "accept tested" {
				t.Errorf("confirm after fallback = %+v, %v", res, err)
			}
			for _, forced := range []string{client.Version20260728, client.Version20251125} {
				c, err := d.dial(t, &client.Options{Protocol: forced}, legacyOnly, nil)
				if err == nil {
					c.Close()
					t.Errorf("forced %s against a server without it: connected", forced)
				}
			}
		})
	}
}

// A client connected in the modern era to a server offering only that era
// does not fall back, and an unknown version is refused before dialing.
func TestClientModernOnlyServer(t *testing.T) {
	for _, d := range dialers() {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			c := connect(t, d, nil, &ferry.ServerOptions{ProtocolVersions: []string{ferry.Version20260728}}, nil)
			if !c.Modern() {
				t.Fatalf("Protocol() = %q", c.Protocol())
			}
			if _, err := d.dial(t, &client.Options{Protocol: client.Version20250326},
				&ferry.ServerOptions{ProtocolVersions: []string{ferry.Version20260728}}, nil); err == nil {
				t.Error("a legacy version against a modern-only server: connected")
			}
		})
	}
	if _, err := client.DialHandler(t.Context(), http.NotFoundHandler(), &client.Options{Protocol: "2024-01-01"}); err == nil ||
		!strings.Contains(err.Error(), "unknown protocol version") {
		t.Errorf("unknown version: err = %v", err)
	}
}

// A modern server question the client has no answer for is the server's
// -32021 error, not a hang or a guess; a legacy one is the tool's error
// result.
func TestClientWithoutAnswers(t *testing.T) {
	h := ferry.NewHTTPHandler(newTestServer(nil), &ferry.HTTPOptions{Stateful: true})
	modern, err := client.DialHandler(t.Context(), h, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer modern.Close()
	_, err = modern.CallTool(t.Context(), "confirm", nil)
	if re, ok := errors.AsType[*client.Error](err); !ok || re.Code != ferry.CodeMissingClientCapability {
		t.Errorf("modern: err = %v, want -32021", err)
	}
	legacy, err := client.DialHandler(t.Context(), h, &client.Options{Protocol: client.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer legacy.Close()
	if res, err := legacy.CallTool(t.Context(), "confirm", nil); err != nil || !res.IsError {
		t.Errorf("legacy: %+v, %v; want an error result", res, err)
	}
}

// An answer beyond MaxResponseBytes is refused with an error, on every
// transport and in both eras, and an HTTP client keeps working after it.
func TestClientBoundsResponses(t *testing.T) {
	for _, d := range dialers() {
		for _, protocol := range []string{client.Version20260728, client.Version20251125} {
			t.Run(d.name+"/"+protocol, func(t *testing.T) {
				t.Parallel()
				c := connect(t, d, &client.Options{Protocol: protocol, Limits: client.Limits{MaxResponseBytes: 64 << 10}}, nil,
					&ferry.HTTPOptions{StreamResponses: protocol != client.Version20260728, Stateful: true})
				_, err := c.CallTool(t.Context(), "big", nil)
				if err == nil || !strings.Contains(err.Error(), "MaxResponseBytes") {
					t.Fatalf("big answer: err = %v, want one naming MaxResponseBytes", err)
				}
				if _, ok := errors.AsType[*client.Error](err); ok {
					t.Errorf("big answer: err = %v is an Error", err)
				}
				if d.name != "stdio" { // a stdio stream cannot resynchronize and is closed
					if _, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "after"}); err != nil {
						t.Errorf("after the big answer: %v", err)
					}
				}
			})
		}
	}
}

// MaxPages bounds a list that goes on, and a server that repeats a cursor
// is caught rather than read forever.
func TestClientBoundsPages(t *testing.T) {
	h := ferry.NewHTTPHandler(newTestServer(&ferry.ServerOptions{PageSize: 1}), nil)
	c, err := client.DialHandler(t.Context(), h, &client.Options{Limits: client.Limits{MaxPages: 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ListTools(t.Context()); err == nil || !strings.Contains(err.Error(), "more than 3 pages") {
		t.Errorf("5 tools in pages of 1 with MaxPages 3: err = %v", err)
	}
	if res, err := c.ListResources(t.Context()); err != nil || len(res) != 3 {
		t.Errorf("3 resources in pages of 1: %v, %v", res, err)
	}

	loop := fakeServer(t, func(m map[string]any) any {
		return map[string]any{"tools": []any{map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"}}}, "nextCursor": "again"}
	})
	c, err = client.DialHandler(t.Context(), loop, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ListTools(t.Context()); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a repeated cursor: err = %v", err)
	}
}

// fakeServer answers legacy initialize and ping itself and every other
// request with result(message).
func fakeServer(t *testing.T, result func(m map[string]any) any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		if m["id"] == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var res any
		switch m["method"] {
		case "server/discover":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m["id"], "error": map[string]any{"code": -32601, "message": "no"}})
			return
		case "initialize":
			res = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "fake", "version": "0"}}
		default:
			res = result(m)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": res})
	})
}

// A server that answers with garbage gives a clear error, never a panic or
// a hang: on HTTP as plain JSON, as an event stream, as another content
// type, as a bare status; on stdio as a line that is not JSON-RPC.
func TestClientGarbage(t *testing.T) {
	cases := []struct {
		name, contentType, body string
		status                  int
		want                    string
	}{
		{"not JSON", "application/json", "hello", 200, "not a JSON-RPC"},
		{"not JSON-RPC", "application/json", `{"ok":true}`, 200, "not a JSON-RPC"},
		{"wrong id", "application/json", `{"jsonrpc":"2.0","id":99,"result":{}}`, 200, "has id 99"},
		{"stream garbage", "text/event-stream", "data: {nope\n\n", 200, "not a JSON-RPC"},
		{"stream without answer", "text/event-stream", ": keepalive\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n", 200, "without an answer"},
		{"html", "text/html", "<html>", 200, "content type"},
		{"bad gateway", "text/plain", "upstream down", 502, "HTTP status 502: upstream down"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			})
			for _, protocol := range []string{client.Version20260728, client.Version20251125} {
				_, err := client.DialHandler(t.Context(), h, &client.Options{Protocol: protocol})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: err = %v, want one containing %q", protocol, err, tc.want)
				}
			}
		})
	}
	t.Run("stdio", func(t *testing.T) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), stdioEnv+"=garbage")
		_, err := client.DialCommand(t.Context(), cmd, nil)
		if err == nil || !strings.Contains(err.Error(), "not a JSON-RPC") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("stdio exits", func(t *testing.T) {
		cmd := exec.Command("true")
		_, err := client.DialCommand(t.Context(), cmd, nil)
		if err == nil || !strings.Contains(err.Error(), "closed its output") {
			t.Errorf("err = %v", err)
		}
	})
}

// A refusal without a JSON-RPC body is a StatusError the caller can read
// (401 with its challenge), and the client does not fall back on it.
func TestClientStatusError(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="test"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		ferry.NewHTTPHandler(newTestServer(nil), nil).ServeHTTP(w, r)
	})
	_, err := client.DialHandler(t.Context(), h, nil)
	se, ok := errors.AsType[*client.StatusError](err)
	if !ok || se.StatusCode != http.StatusUnauthorized || !strings.Contains(http.Header(se.Header).Get("WWW-Authenticate"), "realm") {
		t.Fatalf("err = %v, want a 401 StatusError with its challenge", err)
	}
	c, err := client.DialHandler(t.Context(), h, &client.Options{Header: http.Header{"Authorization": {"Bearer good"}}})
	if err != nil {
		t.Fatalf("with the header: %v", err)
	}
	defer c.Close()
	if _, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "x"}); err != nil {
		t.Errorf("call with the header: %v", err)
	}
}

// recorder keeps the bodies of the requests a handler serves.
type recorder struct {
	next          http.Handler
	mu            sync.Mutex // guards got and deleteVersion
	got           []string
	deleteVersion string // the MCP-Protocol-Version of the last DELETE
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.got = append(rc.got, r.Method+" "+r.Header.Get("Mcp-Method")+" "+r.Header.Get("Mcp-Name")+" "+string(body))
	if r.Method == http.MethodDelete {
		rc.deleteVersion = r.Header.Get("MCP-Protocol-Version")
	}
	rc.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	rc.next.ServeHTTP(w, r)
}

func (rc *recorder) bodies() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.got...)
}

// Cancelling a legacy call sends notifications/cancelled for it, and the
// server's handler sees its context end; Close deletes the session.
func TestClientCancelLegacy(t *testing.T) {
	started, stopped := make(chan struct{}), make(chan struct{})
	srv := newTestServer(nil)
	srv.AddTool(ferry.Tool{Name: "hold", Description: "Holds until cancelled.", ReadOnly: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			close(started)
			<-ctx.Done()
			close(stopped)
			return nil, ctx.Err()
		})
	rec := &recorder{next: ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true})}
	ts := httptest.NewServer(rec)
	defer ts.Close()
	c, err := client.DialHTTP(t.Context(), ts.URL, &client.Options{Protocol: client.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	if _, err := c.CallTool(ctx, "hold", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler was not cancelled")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	var sawCancel, sawDelete bool
	for _, b := range rec.bodies() {
		sawCancel = sawCancel || strings.Contains(b, `"method":"notifications/cancelled"`) && strings.Contains(b, `"requestId":2`)
		sawDelete = sawDelete || strings.HasPrefix(b, "DELETE")
	}
	if !sawCancel || !sawDelete {
		t.Errorf("requests %q: want a notifications/cancelled for id 2 and a DELETE", rec.bodies())
	}
	// Every request after initialize names the version, the DELETE too.
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.deleteVersion != client.Version20251125 {
		t.Errorf("the DELETE's MCP-Protocol-Version is %q, want %q", rec.deleteVersion, client.Version20251125)
	}
}

// Modern requests carry the routing headers, a name that is not ASCII in
// the base64 form, and the Mcp-Param-* headers a tool's schema asks for,
// learnt from tools/list even when the caller did not list first.
func TestClientModernHeaders(t *testing.T) {
	srv := newTestServer(nil)
	srv.AddTool(ferry.Tool{Name: "by_region", Description: "Echoes a region routed by header.", ReadOnly: true,
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`)},
		func(_ context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text(string(req.Arguments))), nil
		})
	srv.AddResource(ferry.Resource{URI: "test://café", Name: "cafe"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, Text: "open"}}, nil
		})
	rec := &recorder{next: ferry.NewHTTPHandler(srv, nil)}
	c, err := client.DialHandler(t.Context(), rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(t.Context(), "by_region", map[string]string{"region": "eu-west é"})
	if err != nil || res.IsError {
		t.Fatalf("by_region = %+v, %v", res, err)
	}
	if _, err := c.ReadResource(t.Context(), "test://café"); err != nil {
		t.Errorf("read a non-ASCII URI: %v", err)
	}
	got := rec.bodies()
	if last := got[len(got)-1]; !strings.HasPrefix(last, "POST resources/read =?base64?") {
		t.Errorf("last request %q: want Mcp-Name in base64", last)
	}
}

// One HandlerTransport serves several clients at once.
func TestHandlerTransportIsShared(t *testing.T) {
	rt := &client.HandlerTransport{Handler: ferry.NewHTTPHandler(newTestServer(nil), nil)}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			c, err := client.DialHTTP(t.Context(), "http://localhost/mcp", &client.Options{HTTPClient: &http.Client{Transport: rt}})
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			text := fmt.Sprint(i)
			res, err := c.CallTool(t.Context(), "echo", map[string]string{"text": text})
			if err != nil || string(res.StructuredContent) != `{"echo":"`+text+`"}` {
				t.Errorf("client %d: %+v, %v", i, res, err)
			}
		})
	}
	wg.Wait()
}

// Roots are answered in both eras, and notifications sent while a call
// runs (progress here) reach Options.Notify, on every transport.
func TestClientRootsAndNotifications(t *testing.T) {
	for _, d := range dialers() {
		for _, protocol := range []string{client.Version20260728, client.Version20251125} {
			t.Run(d.name+"/"+protocol, func(t *testing.T) {
				t.Parallel()
				var mu sync.Mutex
				var progress []string
				c := connect(t, d, &client.Options{
					Protocol: protocol,
					ListRoots: func(context.Context) ([]client.Root, error) {
						return []client.Root{{URI: "file:///a"}, {URI: "file:///b", Name: "b"}}, nil
					},
					Notify: func(method string, params json.RawMessage) {
						mu.Lock()
						defer mu.Unlock()
						if method == "notifications/progress" {
							progress = append(progress, string(params))
						}
					},
				}, nil, &ferry.HTTPOptions{Stateful: true})
				if res, err := c.CallTool(t.Context(), "roots", nil); err != nil || res.Text() != "file:///a,file:///b" {
					t.Errorf("roots = %+v, %v", res, err)
				}
				var res client.ToolResult
				err := c.Call(t.Context(), "tools/call", map[string]any{"name": "steps", "_meta": map[string]any{"progressToken": "p1"}}, &res)
				if err != nil || res.Text() != "done" {
					t.Fatalf("steps = %+v, %v", res, err)
				}
				mu.Lock()
				defer mu.Unlock()
				if len(progress) != 2 || !strings.Contains(progress[1], `"progress":2`) || !strings.Contains(progress[0], `"progressToken":"p1"`) {
					t.Errorf("progress notifications = %q, want two for p1", progress)
				}
			})
		}
	}
}

// discoverRefused answers server/discover with status and body, and
// passes every other request to next: a legacy server, or a proxy, that
// does not know the method.
func discoverRefused(next http.Handler, status int, contentType, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		if bytes.Contains(data, []byte(`"method":"server/discover"`)) {
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		next.ServeHTTP(w, r)
	})
}

// The default mode falls back to legacy on the refusals a server that
// does not know server/discover gives, and not on an authentication
// refusal, which it reports.
func TestClientFallsBackOnRefusals(t *testing.T) {
	rpcErr := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`
	cases := []struct {
		name, contentType, body string
		status                  int
		fallsBack               bool
	}{
		{"404 method not found", "application/json", rpcErr, 404, true},
		{"200 method not found", "application/json", rpcErr, 200, true},
		{"400 plain", "text/plain", "Bad Request: missing session", 400, true},
		{"404 plain", "text/plain", "404 page not found", 404, true},
		{"405 plain", "text/plain", "method not allowed", 405, true},
		{"401", "text/plain", "unauthorized", 401, false},
		{"500", "text/plain", "oops", 500, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := discoverRefused(ferry.NewHTTPHandler(newTestServer(nil), nil), tc.status, tc.contentType, tc.body)
			c, err := client.DialHandler(t.Context(), h, nil)
			if !tc.fallsBack {
				if err == nil {
					c.Close()
					t.Fatalf("connected in %s, want the refusal reported", c.Protocol())
				}
				if se, ok := errors.AsType[*client.StatusError](err); !ok || se.StatusCode != tc.status {
					t.Errorf("err = %v, want a StatusError %d", err, tc.status)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Protocol() != client.Version20251125 {
				t.Errorf("Protocol() = %q, want %s", c.Protocol(), client.Version20251125)
			}
		})
	}
}

// Over stdio a cancelled call is cancelled with notifications/cancelled in
// both eras: the server process counts the wait it saw end.
func TestClientCancelStdio(t *testing.T) {
	stdio := dialers()[2]
	for _, protocol := range []string{client.Version20260728, client.Version20251125} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			c := connect(t, stdio, &client.Options{Protocol: protocol}, nil, nil)
			waits := func() string {
				res, err := c.CallTool(t.Context(), "waits", nil)
				if err != nil {
					t.Fatal(err)
				}
				return res.Text()
			}
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := c.CallTool(ctx, "wait", nil)
				done <- err
			}()
			deadline := time.Now().Add(10 * time.Second)
			for waits() != "1/0" {
				if time.Now().After(deadline) {
					t.Fatalf("the wait did not start: %s", waits())
				}
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
			for waits() != "1/1" {
				if time.Now().After(deadline) {
					t.Fatalf("the server did not see the cancellation: %s", waits())
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}
