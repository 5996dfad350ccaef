package route_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/ferry-mcp/ferry/route"
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
// Tests call its tools through ferrytest's client, in either era.
type mcpServer struct {
	srv     *ferry.Server
	logs    *ferrytest.Buffer
	h       http.Handler
	clients map[era]*ferrytest.Client // one per era, for calls without extra headers
}

// newMCPServer returns a server whose logs are kept; add tools, then call
// serve.
func newMCPServer(t *testing.T) *mcpServer {
	t.Helper()
	logs := new(ferrytest.Buffer)
	srv := ferry.NewServer("route-test", "1.0.0", &ferry.ServerOptions{
		Logger:      logs.Logger(),
		SigningKeys: [][]byte{[]byte("route-test-key")},
		// One anonymous caller sends every test's calls, some hundreds at
		// once: the per-caller limits are the core's to test, not these,
		// and so is the result budget (the binding's echoes are large).
		Limits: ferry.Limits{MaxCallsPerCaller: -1, CallRate: -1, MaxResultBytes: -1},
	})
	return &mcpServer{srv: srv, logs: logs}
}

// serve builds the HTTP handler and connects a client in each era; it
// fails t when the server's start-up check fails.
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
	m.clients = map[era]*ferrytest.Client{}
	for _, e := range eras {
		m.clients[e] = ferrytest.DialHandler(t, m.h, &ferrytest.Options{Protocol: string(e)})
	}
}

// result is a tools/call's outcome as a client reads it.
type result struct {
	Text       string          // the text blocks, joined
	Structured json.RawMessage // structuredContent
	IsError    bool
	RPCError   string          // the protocol error, if the call failed with one
	Raw        json.RawMessage // the result as the server sent it
}

// call calls tool with args (a JSON object) in era e. Extra header pairs
// are sent with every request of a connection of their own, made on the
// caller's goroutine. Without them, it reports failures with t.Errorf, so
// it may run on any goroutine.
func (m *mcpServer) call(t *testing.T, e era, tool, args string, header ...string) result {
	t.Helper()
	return m.callContext(t.Context(), t, e, tool, args, header...)
}

// callContext is call with a context of the test's choosing: a call its
// context ends is not a failure.
func (m *mcpServer) callContext(ctx context.Context, t *testing.T, e era, tool, args string, header ...string) result {
	t.Helper()
	c := m.clients[e]
	if len(header) > 0 {
		h := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			h.Add(header[i], header[i+1])
		}
		c = ferrytest.DialHandler(t, m.h, &ferrytest.Options{Protocol: string(e), Header: h})
	}
	// Call, not CallTool, so that the arguments go as the test wrote
	// them, null included.
	params := map[string]any{"name": tool, "arguments": json.RawMessage(args)}
	var raw json.RawMessage
	if err := c.Raw().Call(ctx, "tools/call", params, &raw); err != nil {
		if ctx.Err() == nil {
			t.Errorf("tools/call %s (%s): %v", tool, e, err) // not Fatal: calls may run on other goroutines
		}
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
	r := result{Structured: res.StructuredContent, IsError: res.IsError, Raw: raw}
	for _, c := range res.Content {
		r.Text += c.Text
	}
	return r
}

// seen is what the test service's echo route saw of a request.
type seen struct {
	Method     string              `json:"method"`
	Path       string              `json:"path"`
	RawPath    string              `json:"raw_path,omitempty"`
	RequestURI string              `json:"request_uri"`
	Host       string              `json:"host"`
	RemoteAddr string              `json:"remote_addr"`
	Query      map[string][]string `json:"query,omitempty"`
	Header     map[string][]string `json:"header"`
	Body       string              `json:"body,omitempty"`
	Values     map[string]string   `json:"values,omitempty"`
	Agent      string              `json:"agent,omitempty"`
	RequestID  string              `json:"request_id,omitempty"`
	Principal  string              `json:"principal,omitempty"`
}

// echo answers what it saw of the request, reading the named wildcards.
func echo(wildcards ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s := seen{Method: r.Method, Path: r.URL.Path, RawPath: r.URL.RawPath, RequestURI: r.RequestURI,
			Host: r.Host, RemoteAddr: r.RemoteAddr, Header: r.Header, Body: string(body)}
		if q := r.URL.Query(); len(q) > 0 {
			s.Query = q
		}
		for _, name := range wildcards {
			if s.Values == nil {
				s.Values = map[string]string{}
			}
			s.Values[name] = r.PathValue(name)
		}
		s.Agent, _ = route.FromAgent(r)
		s.RequestID, _ = route.RequestID(r)
		if p, ok := ferry.PrincipalFromContext(r.Context()); ok {
			s.Principal = p.Subject
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s)
	}
}

// respond answers as its query says: status, type (Content-Type), body,
// retry (Retry-After), size (a body of that many x), location.
func respond(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if v := q.Get("type"); v != "" {
		w.Header().Set("Content-Type", v)
	}
	if v := q.Get("retry"); v != "" {
		w.Header().Set("Retry-After", v)
	}
	if v := q.Get("location"); v != "" {
		w.Header().Set("Location", v)
	}
	status, _ := strconv.Atoi(q.Get("status"))
	if status != 0 {
		w.WriteHeader(status)
	}
	if n, _ := strconv.Atoi(q.Get("size")); n > 0 {
		chunk := []byte(strings.Repeat("x", 1000))
		for written := 0; written < n; written += len(chunk) {
			if _, err := w.Write(chunk[:min(len(chunk), n-written)]); err != nil {
				return
			}
		}
		return
	}
	body := q.Get("body")
	if body == "$id" {
		body = r.Header.Get("X-Request-Id")
	}
	_, _ = io.WriteString(w, body)
}

// flush uses what http.ResponseController offers, and answers how each
// call went.
func flush(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	var out []string
	note := func(name string, err error) {
		if err != nil {
			out = append(out, name+": "+err.Error())
		} else {
			out = append(out, name+": ok")
		}
	}
	_, _ = io.WriteString(w, "part one; ")
	note("Flush", rc.Flush())
	note("SetReadDeadline", rc.SetReadDeadline(time.Now().Add(time.Second)))
	note("SetWriteDeadline", rc.SetWriteDeadline(time.Now().Add(time.Second)))
	note("EnableFullDuplex", rc.EnableFullDuplex())
	_, _, err := rc.Hijack()
	out = append(out, "Hijack fails: "+strconv.FormatBool(err != nil))
	w.(http.Flusher).Flush()
	_, _ = io.WriteString(w, strings.Join(out, ", "))
}

// started is closed by the slow route when it starts; done receives how its
// context ended.
type slowRoute struct {
	started chan struct{}
	done    chan error
}

func (s *slowRoute) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	close(s.started)
	select {
	case <-r.Context().Done():
		s.done <- r.Context().Err()
	case <-time.After(10 * time.Second):
		s.done <- nil
	}
}

// service is the test service's mux.
func service(slow http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /orders/{id}", echo("id"))
	mux.Handle("POST /orders/{id}/cancel", echo("id"))
	mux.Handle("PUT /orders/{id}", echo("id"))
	mux.Handle("DELETE /orders/{id}", echo("id"))
	mux.Handle("GET /files/{path...}", echo("path"))
	mux.Handle("POST /notes", echo())
	mux.Handle("GET /status", echo())
	mux.HandleFunc("GET /respond", respond)
	mux.HandleFunc("GET /flush", flush)
	mux.HandleFunc("GET /boom", func(http.ResponseWriter, *http.Request) { panic("the route broke") })
	mux.HandleFunc("GET /abort", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })
	if slow != nil {
		mux.Handle("GET /slow", slow)
	}
	return mux
}

// Input types of the test service's tools.
type (
	orderIn struct {
		ID     string   `json:"id" doc:"The order."`
		Expand []string `json:"expand,omitempty" doc:"What to expand."`
		Limit  float64  `json:"limit,omitzero" doc:"A number."`
		Big    int64    `json:"big,omitzero" doc:"A big number."`
		Active *bool    `json:"active,omitempty" doc:"A flag."`
		Note   *string  `json:"note,omitempty" doc:"Null is left out."`
	}
	cancelIn struct {
		ID     string `json:"id" doc:"The order."`
		Reason string `json:"reason" doc:"Why."`
		Key    string `json:"key,omitzero" doc:"An idempotency key." in:"header=Idempotency-Key"`
		Notify bool   `json:"notify,omitzero" doc:"Tell the customer." in:"query"`
		Items  []int  `json:"items,omitempty" doc:"Lines."`
	}
	optionalIDIn struct {
		ID *string `json:"id,omitempty" doc:"The order."`
	}
	fileIn struct {
		Path string `json:"path" doc:"The file."`
	}
	respondIn struct {
		Status   int    `json:"status,omitzero" doc:"The status."`
		Type     string `json:"type,omitzero" doc:"The Content-Type."`
		Body     string `json:"body,omitzero" doc:"The body."`
		Retry    string `json:"retry,omitzero" doc:"Retry-After."`
		Size     int    `json:"size,omitzero" doc:"A body this long."`
		Location string `json:"location,omitzero" doc:"Location."`
	}
	noIn struct{}
)

// testBinding binds the test service's tools on m; opts may be nil.
func testBinding(m *mcpServer, h http.Handler, opts *route.Options) *route.Binding {
	b := route.New(m.srv, h, opts)
	route.AddTool[orderIn](b, ferry.Tool{Name: "get_order", Description: "Fetches an order."}, "GET /orders/{id}")
	route.AddTool[cancelIn](b, ferry.Tool{Name: "cancel_order", Description: "Cancels an order."}, "POST /orders/{id}/cancel")
	route.AddTool[optionalIDIn](b, ferry.Tool{Name: "replace_order", Description: "Replaces an order."}, "PUT /orders/{id}")
	route.AddTool[optionalIDIn](b, ferry.Tool{Name: "delete_order", Description: "Deletes an order."}, "DELETE /orders/{id}")
	route.AddTool[fileIn](b, ferry.Tool{Name: "read_file", Description: "Reads a file."}, "GET /files/{path...}")
	route.AddTool[respondIn](b, ferry.Tool{Name: "respond", Description: "Answers as told."}, "GET /respond")
	route.AddTool[noIn](b, ferry.Tool{Name: "status", Description: "Says how things are."}, "GET /status")
	route.AddTool[noIn](b, ferry.Tool{Name: "flush", Description: "Flushes."}, "GET /flush")
	route.AddTool[noIn](b, ferry.Tool{Name: "boom", Description: "Breaks."}, "GET /boom")
	route.AddTool[noIn](b, ferry.Tool{Name: "abort", Description: "Aborts."}, "GET /abort")
	b.AddTool(ferry.Tool{Name: "add_note", Description: "Adds a note.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}}}`)},
		"POST /notes")
	return b
}
