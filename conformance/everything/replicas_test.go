package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/redisstore"
)

// startReplicas runs the fixture as -http 127.0.0.1:0 -replicas n would,
// with cfg's other flags, until the test ends, and returns the proxy's URL
// and a function that stops it and returns run's error.
func startReplicas(t *testing.T, n int, cfg config) (url string, stop func() error) {
	t.Helper()
	cfg.addr, cfg.replicas = "127.0.0.1:0", n
	d := &dialOnLog{logged: make(chan struct{})}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, cfg, slog.New(slog.NewTextHandler(d, nil)))
	}()
	select {
	case <-d.logged:
	case err := <-done:
		cancel()
		t.Fatalf("run returned %v before serving", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("no serving line within 10s")
	}
	stopped := false
	var err error
	stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			select {
			case err = <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("run did not return within 15s of its context's end")
			}
		}
		return err
	}
	t.Cleanup(func() { _ = stop() })
	d.mu.Lock()
	defer d.mu.Unlock()
	return "http://" + d.url + "/mcp", stop
}

// session is a legacy 2025-06-18 client of the proxy that records which
// replica served each of its requests.
type session struct {
	t      *testing.T
	url    string
	id     string   // the Mcp-Session-Id, once initialized
	served []string // the X-Ferry-Replica of each response, in order
	nextID int
}

// call sends one JSON-RPC request (or a notification, if method starts
// with "notifications/") and returns its result, failing t on an error.
func (s *session) call(method string, params any) json.RawMessage {
	s.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	notify := strings.HasPrefix(method, "notifications/")
	if !notify {
		s.nextID++
		msg["id"] = s.nextID
	}
	body, _ := json.Marshal(msg)
	req, _ := http.NewRequestWithContext(s.t.Context(), http.MethodPost, s.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	s.served = append(s.served, resp.Header.Get(replicaHeader))
	if s.id == "" {
		s.id = resp.Header.Get("Mcp-Session-Id")
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatalf("%s: reading the answer: %v", method, err)
	}
	if notify {
		if resp.StatusCode != http.StatusAccepted {
			s.t.Fatalf("%s: status %d, want 202: %s", method, resp.StatusCode, data)
		}
		return nil
	}
	var answer struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(lastEvent(data), &answer); err != nil || answer.Error != nil || answer.Result == nil {
		s.t.Fatalf("%s: status %d, answer %s, want a result", method, resp.StatusCode, data)
	}
	return answer.Result
}

// lastEvent returns the data of the last SSE event of body, or body itself
// if it is not a stream.
func lastEvent(body []byte) []byte {
	last := body
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok && len(bytes.TrimSpace(data)) > 0 {
			last = bytes.Clone(bytes.TrimSpace(data))
		}
	}
	return last
}

// delete ends the session with DELETE, failing t unless it is answered 204.
func (s *session) delete() {
	s.t.Helper()
	req, _ := http.NewRequestWithContext(s.t.Context(), http.MethodDelete, s.url, nil)
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("DELETE: %v", err)
	}
	resp.Body.Close()
	s.served = append(s.served, resp.Header.Get(replicaHeader))
	if resp.StatusCode != http.StatusNoContent {
		s.t.Fatalf("DELETE: status %d, want 204", resp.StatusCode)
	}
}

// newSession initializes a session through the proxy at url.
func newSession(t *testing.T, url string) *session {
	t.Helper()
	s := &session{t: t, url: url}
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "replicas_test", "version": "1"}})
	if s.id == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	s.call("notifications/initialized", nil)
	return s
}

// With -replicas 2, the proxy sends each request to the other replica,
// and a stateful session made on one is served by both: they share the
// session store.
func TestProxyAlternatesBetweenReplicas(t *testing.T) {
	url, stop := startReplicas(t, 2, config{})
	checkAlternates(t, newSession(t, url))
	if err := stop(); err != nil {
		t.Errorf("run after its context's end: %v", err)
	}
}

// checkAlternates makes four calls in s and checks that they and the
// requests s made before went to each replica in turn.
func checkAlternates(t *testing.T, s *session) {
	t.Helper()
	for i := range 4 {
		got := s.call("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}})
		if !bytes.Contains(got, []byte(`"hi"`)) {
			t.Errorf("echo %d: result %s, want the text back", i, got)
		}
	}
	for i, r := range s.served {
		if r != "1" && r != "2" {
			t.Fatalf("response %d: %s %q, want 1 or 2", i, replicaHeader, r)
		}
		if i > 0 && r == s.served[i-1] {
			t.Errorf("responses %d and %d both from replica %s, want them to alternate (served: %v)", i-1, i, r, s.served)
		}
	}
}

// With -redis, the replicas share their sessions through Redis: the
// session lives there, under the prefix, until DELETE.
func TestReplicasShareARedisStore(t *testing.T) {
	const redisURL = "redis://127.0.0.1:6379/0"
	c, err := net.DialTimeout("tcp", "127.0.0.1:6379", time.Second)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Redis at 127.0.0.1:6379 does not answer (CI is set, so this fails): %v", err)
		}
		t.Skipf("skipping: Redis at 127.0.0.1:6379 does not answer (start redis-server to run this): %v", err)
	}
	c.Close()
	prefix := fmt.Sprintf("ferry-conf-test:%s:%d:", t.Name(), rand.Int64())
	url, stop := startReplicas(t, 2, config{redisURL: redisURL, redisPrefix: prefix})
	s := newSession(t, url)
	checkAlternates(t, s)

	store, err := redisstore.Dial(t.Context(), redisURL, &redisstore.Options{Prefix: prefix})
	if err != nil {
		t.Fatalf("dialing Redis as a third replica: %v", err)
	}
	defer store.Close()
	if _, err := store.Load(t.Context(), s.id); err != nil {
		t.Errorf("loading the session from Redis under %q: %v", prefix, err)
	}
	s.delete()
	if _, err := store.Load(t.Context(), s.id); !errors.Is(err, ferry.ErrSessionNotFound) {
		t.Errorf("loading the session after DELETE: %v, want ferry.ErrSessionNotFound", err)
	}
	if err := stop(); err != nil {
		t.Errorf("run after its context's end: %v", err)
	}
}

// A trigger on one replica changes the lists and the watched resource of
// every replica.
func TestFixtureChangesReachEveryReplica(t *testing.T) {
	url, _ := startReplicas(t, 2, config{})
	s := newSession(t, url)
	s.call("tools/call", map[string]any{"name": "test_trigger_tool_change", "arguments": map[string]any{}})
	s.call("tools/call", map[string]any{"name": "test_trigger_prompt_change", "arguments": map[string]any{}})
	s.call("tools/call", map[string]any{"name": "touch_watched", "arguments": map[string]any{}})
	for range 2 { // one request on each replica
		if got := s.call("tools/list", nil); !bytes.Contains(got, []byte(`"test_dynamic_tool"`)) {
			t.Errorf("tools/list on replica %s after the trigger: no test_dynamic_tool in %s", s.served[len(s.served)-1], got)
		}
		if got := s.call("prompts/list", nil); !bytes.Contains(got, []byte(`"test_dynamic_prompt"`)) {
			t.Errorf("prompts/list on replica %s after the trigger: no test_dynamic_prompt in %s", s.served[len(s.served)-1], got)
		}
		if got := s.call("resources/read", map[string]any{"uri": watched}); !bytes.Contains(got, []byte("version 1.")) {
			t.Errorf("resources/read on replica %s after a touch: %s, want version 1", s.served[len(s.served)-1], got)
		}
	}
	s.call("tools/call", map[string]any{"name": "test_trigger_tool_change", "arguments": map[string]any{}})
	for range 2 {
		if got := s.call("tools/list", nil); bytes.Contains(got, []byte(`"test_dynamic_tool"`)) {
			t.Errorf("tools/list on replica %s after the second trigger: test_dynamic_tool still listed", s.served[len(s.served)-1])
		}
	}
}

func TestRunRefusesBadFlags(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  config
		want string
	}{
		{"no replicas", config{addr: "127.0.0.1:0", replicas: 0}, "-replicas 0"},
		{"replicas on stdio", config{replicas: 2}, "need -http"},
		{"redis on stdio", config{replicas: 1, redisURL: "redis://127.0.0.1:6379/0"}, "need -http"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := run(t.Context(), tt.cfg, slog.New(slog.DiscardHandler))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run: %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

// The proxy passes a replica's answer on while the request's body is still
// arriving, as it must for a replica that starts its stream before it sees
// the body's end: net/http would otherwise read and close the rest of the
// body as the answer's headers go out, under the feet of the transport
// still copying it to the replica (the client saw its stream cut).
func TestProxyStreamsWhileTheRequestBodyArrives(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.EnableFullDuplex()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_ = rc.Flush()
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("the replica reading the body: %v", err)
		}
		fmt.Fprintf(w, "data: %s\n\n", body)
	}))
	defer backend.Close()
	target, _ := url.Parse(backend.URL)
	transport := http.DefaultTransport.(*http.Transport).Clone()
	defer transport.CloseIdleConnections()
	front := httptest.NewServer(fullDuplex(newProxy([]*url.URL{target}, transport, slog.New(slog.DiscardHandler))))
	defer front.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	// On failure (no headers within 5s), the client's transport waits on
	// its body read: end it.
	context.AfterFunc(ctx, func() { pw.CloseWithError(ctx.Err()) })
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, front.URL+"/mcp", pr)
	go func() { _, _ = pw.Write([]byte("first half,")) }()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the answer's headers before the body's end: %v", err)
	}
	defer resp.Body.Close()
	_, _ = pw.Write([]byte(" second half"))
	pw.Close()
	got, err := io.ReadAll(resp.Body)
	if want := "data: first half, second half\n\n"; err != nil || string(got) != want {
		t.Errorf("answer %q (err %v), want %q", got, err, want)
	}
}
