package ferry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// A stateful session has one GET stream: every notification goes on one
// stream only, so a second is refused while the first is open.
func TestOneGetStreamPerSession(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	srv.AddTool(ferry.Tool{Name: "t", Description: "A tool."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return nil, nil
	})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true}))
	defer ts.Close()
	init, _ := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`))
	resp, err := http.DefaultClient.Do(init)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	get := func(ctx context.Context) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	ctx, cancel := context.WithCancel(t.Context())
	first := get(ctx)
	if first.StatusCode != http.StatusOK {
		t.Fatalf("first GET: %d", first.StatusCode)
	}
	second := get(t.Context())
	second.Body.Close()
	if second.StatusCode != http.StatusConflict {
		t.Errorf("second GET while the first is open: %d, want 409", second.StatusCode)
	}
	cancel()
	first.Body.Close()
}

// DELETE ends the session: its GET stream closes, and the id is gone.
func TestDeleteEndsTheGetStream(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	srv.AddTool(ferry.Tool{Name: "t", Description: "A tool."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return nil, nil
	})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true}))
	defer ts.Close()
	resp, err := http.Post(ts.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	do := func(method string) *http.Response {
		req, _ := http.NewRequestWithContext(t.Context(), method, ts.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	stream := do("GET")
	defer stream.Body.Close()
	if del := do("DELETE"); del.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", del.StatusCode)
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, stream.Body)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("reading the GET stream: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the GET stream is still open after DELETE")
	}
	if again := do("GET"); again.StatusCode != http.StatusNotFound {
		t.Errorf("GET after DELETE: %d, want 404", again.StatusCode)
	}
}

// A refused Host or Origin says which header, and the log says which
// option would allow it; an Origin sent twice is refused.
func TestRefusedOriginSaysWhatAndLogsTheOption(t *testing.T) {
	srv, logs := newLogged(t, nil)
	srv.AddTool(ferry.Tool{Name: "t", Description: "A tool."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
	h := ferry.NewHTTPHandler(srv, nil)
	tests := []struct {
		name    string
		host    string
		origins []string
		want    string
	}{
		{"foreign origin", "localhost:8080", []string{"https://evil.example"}, "Origin"},
		{"own origin twice", "localhost:8080", []string{"http://localhost:8080", "http://localhost:8080"}, "Origin"},
		{"foreign host", "evil.example", nil, "Host"},
		{"own origin once", "localhost:8080", []string{"http://localhost:8080"}, ""},
	}
	for _, tt := range tests {
		req := httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Host = tt.host
		req.Header["Origin"] = tt.origins
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		refused := rec.Code == http.StatusForbidden
		if refused != (tt.want != "") || refused && !strings.Contains(rec.Body.String(), "the request's "+tt.want+" is not allowed") {
			t.Errorf("%s: %d %s", tt.name, rec.Code, rec.Body)
		}
	}
	recs := logs.records(t, "ferry: refused a request from an origin it does not serve")
	if len(recs) != 3 || recs[0]["value"] != "https://evil.example" || recs[2]["value"] != "evil.example" || !strings.Contains(recs[2]["hint"].(string), "AllowedHosts") {
		t.Errorf("log records: %v", recs)
	}
}
