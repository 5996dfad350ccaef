package ferry_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"

	"encoding/json"
	"io"
)

// A subscriptions/listen stream sets its own deadline for each
// notification, so an http.Server's WriteTimeout does not cut it: a
// change made after the timeout still reaches the client.
func TestListenStreamOutlivesTheServersWriteTimeout(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	ts := httptest.NewUnstartedServer(ferry.NewHTTPHandler(srv, nil))
	const writeTimeout = 200 * time.Millisecond
	ts.Config.WriteTimeout = writeTimeout
	ts.Start()
	defer ts.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL, strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewScanner(resp.Body)
	next := func(want string) {
		t.Helper()
		for events.Scan() {
			if strings.Contains(events.Text(), want) {
				return
			}
		}
		t.Fatalf("the stream ended before %s: %v", want, events.Err())
	}
	next("notifications/subscriptions/acknowledged")

	time.Sleep(2 * writeTimeout)
	srv.AddTool(ferry.Tool{Name: "t", Description: "A tool."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return &ferry.ToolResult{}, nil
	})
	next("notifications/tools/list_changed")
}

// sseStream is the response to a POST or GET read one event at a time.
type sseStream struct {
	t      *testing.T
	status int         // the response's status, set before the first event
	events chan string // the data of each message event; closed at the end
}

// openStream sends a request and returns its response as a stream of
// events (or, for a JSON answer, one event holding the body).
func openStream(t *testing.T, method, url, session, body string, header ...string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequestWithContext(ctx, method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	s := &sseStream{t: t, events: make(chan string, 16)}
	// The headers of a legacy answer come with its first event, so the
	// request is sent on the stream's goroutine.
	go func() {
		defer close(s.events)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			s.events <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		s.status = resp.StatusCode
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			data, _ := io.ReadAll(resp.Body)
			s.events <- string(data)
			return
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "" {
				s.events <- data
			}
		}
	}()
	return s
}

// next returns the next event's data; it fails the test when the stream
// ends or nothing comes for 10s.
func (s *sseStream) next() string {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			s.t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		s.t.Fatal("no event within 10s")
	}
	return ""
}

// ended waits for the stream to end and fails if another event comes.
func (s *sseStream) ended() {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if ok {
			s.t.Fatalf("an event after the end: %s", ev)
		}
	case <-time.After(10 * time.Second):
		s.t.Fatal("the stream did not end within 10s")
	}
}

// decode unmarshals an event's JSON.
func decode(t *testing.T, data string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	return m
}

// initLegacy opens a 2025-03-26 session with the given client
// capabilities and returns its id.
func initLegacy(t *testing.T, url, caps string) string {
	t.Helper()
	status, id, body := post(t, url, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":`+caps+`,"clientInfo":{"name":"c","version":"1"}}}`)
	if status != 200 || id == "" {
		t.Fatalf("initialize: %d %s", status, body)
	}
	post(t, url, "", id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return id
}

// mustJSON marshals v.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
