package redisstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ferry-mcp/ferry"
)

// redisServer is a redis-server of the test's own, on a free port, without
// persistence.
type redisServer struct {
	t    *testing.T
	port string
	cmd  *exec.Cmd
}

// startRedis starts a redis-server on a free port, stopped at cleanup.
// Without the binary the test skips, or fails when CI is set.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("redis-server is not installed (CI is set, so this fails): %v", err)
		}
		t.Skipf("skipping: redis-server is not installed: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	_ = l.Close()
	r := &redisServer{t: t, port: port}
	r.start()
	t.Cleanup(r.kill)
	return r
}

func (r *redisServer) addr() string { return "127.0.0.1:" + r.port }

// start runs redis-server and waits until it answers.
func (r *redisServer) start() {
	r.t.Helper()
	r.cmd = exec.Command("redis-server", "--port", r.port, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", r.t.TempDir())
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("starting redis-server: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: r.addr(), MaxRetries: -1})
	defer func() { _ = c.Close() }()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("redis-server on port %s did not answer within 5s: %v", r.port, err)
		}
	}
}

// kill stops redis-server at once, as a crash would.
func (r *redisServer) kill() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.cmd = nil
}

// mcpClient speaks legacy 2025-06-18 HTTP to one handler.
type mcpClient struct {
	t       *testing.T
	url     string
	session string
	nextID  int
}

// reply is what one request got.
type reply struct {
	status  int
	session string // the Mcp-Session-Id header
	code    int    // the JSON-RPC error code, or 0
	message string // the JSON-RPC error message
	result  json.RawMessage
}

func (c *mcpClient) post(method string, params any) reply {
	c.t.Helper()
	c.nextID++
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	ctx, cancel := context.WithTimeout(c.t.Context(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", ferry.Version20250618)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s: reading the answer: %v", method, err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data = lastEvent(data)
	}
	var m struct {
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(data, &m); err != nil {
		c.t.Fatalf("%s: HTTP %d, undecodable answer %q: %v", method, resp.StatusCode, data, err)
	}
	r := reply{status: resp.StatusCode, session: resp.Header.Get("Mcp-Session-Id"), result: m.Result}
	if m.Error != nil {
		r.code, r.message = m.Error.Code, m.Error.Message
	}
	return r
}

// lastEvent returns the data of an SSE stream's last event.
func lastEvent(stream []byte) []byte {
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(stream))
	for sc.Scan() {
		if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
			last = bytes.Clone(d)
		}
	}
	return last
}

// initialize opens a session and sends notifications/initialized.
func (c *mcpClient) initialize() reply {
	c.t.Helper()
	c.session = ""
	r := c.post("initialize", map[string]any{
		"protocolVersion": ferry.Version20250618,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "redisstore-test", "version": "1"},
	})
	if r.status != http.StatusOK {
		return r
	}
	c.session = r.session
	body := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	req, _ := http.NewRequestWithContext(c.t.Context(), http.MethodPost, c.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", ferry.Version20250618)
	req.Header.Set("Mcp-Session-Id", c.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("notifications/initialized: %v", err)
	}
	_ = resp.Body.Close()
	return r
}

func (c *mcpClient) call() reply {
	c.t.Helper()
	return c.post("tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "Ada"}})
}

func mustWork(t *testing.T, what string, r reply) {
	t.Helper()
	if r.status != http.StatusOK || r.code != 0 {
		t.Fatalf("%s: HTTP %d, error %d %q; want a result", what, r.status, r.code, r.message)
	}
}

// wantStoreFailure checks that a request failed as a store failure does,
// naming the store, and quickly.
func wantStoreFailure(t *testing.T, what string, took time.Duration, r reply) {
	t.Helper()
	if r.status != http.StatusInternalServerError || r.code != int(ferry.CodeInternalError) {
		t.Errorf("%s with Redis down: HTTP %d, error %d %q; want HTTP 500 with error %d",
			what, r.status, r.code, r.message, ferry.CodeInternalError)
	}
	if !strings.Contains(r.message, "redis") {
		t.Errorf("%s with Redis down: message %q does not name the store (redis)", what, r.message)
	}
	t.Logf("%s with Redis down failed in %v", what, took.Round(time.Millisecond))
	if took > 3*time.Second {
		t.Errorf("%s with Redis down took %v, want at most 3s", what, took)
	}
}

type greetIn struct {
	Name string `json:"name"`
}

func TestRedisOutageFailsRequestsAndRecovers(t *testing.T) {
	t.Parallel()
	rs := startRedis(t)
	// The default Timeout, 2s: requests must fail within 3s with it. The
	// Redis is the test's own, so the prefix needs no randomness.
	store, err := Dial(t.Context(), "redis://"+rs.addr()+"/0", &Options{Prefix: "ferrytest-outage:"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	deliver, relayed := collect()
	stop := store.Subscribe(deliver)
	defer stop()

	srv := ferry.NewServer("outage", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	ferry.AddTool(srv, ferry.Tool{Name: "greet", Description: "Greets someone."},
		func(_ context.Context, in greetIn) (string, error) { return "hello " + in.Name, nil })
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true, SessionStore: store}))
	t.Cleanup(ts.Close)
	c := &mcpClient{t: t, url: ts.URL}

	mustWork(t, "initialize", c.initialize())
	mustWork(t, "tools/call", c.call())

	rs.kill()
	start := time.Now()
	r := c.call()
	wantStoreFailure(t, "tools/call", time.Since(start), r)
	start = time.Now()
	r = c.initialize()
	wantStoreFailure(t, "initialize", time.Since(start), r)
	if r.session != "" {
		t.Errorf("a failed initialize issued session id %q", r.session)
	}
	if err := store.Publish(t.Context(), []byte("lost")); err == nil {
		t.Error("Publish with Redis down succeeded")
	}

	rs.start()
	restarted := time.Now()
	// go-redis reconnects by itself; give its pool and pub/sub a moment.
	var last reply
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if last = c.initialize(); last.status == http.StatusOK {
			break
		}
	}
	mustWork(t, "initialize after Redis restarted", last)
	t.Logf("a session opened %v after Redis restarted", time.Since(restarted).Round(time.Millisecond))
	mustWork(t, "tools/call after Redis restarted", c.call())

	// The subscription comes back too: a message published once it has
	// resubscribed is delivered. Until then messages are lost, as the
	// relay allows, so publish until one arrives.
	for i := 0; ; i++ {
		if i == 100 {
			t.Fatal("no message published after the restart was delivered within 10s: the subscription did not recover")
		}
		msg := fmt.Sprint("after restart ", i)
		if err := store.Publish(t.Context(), []byte(msg)); err != nil {
			t.Fatalf("Publish after the restart: %v", err)
		}
		select {
		case got := <-relayed:
			if !strings.HasPrefix(got, "after restart ") {
				t.Fatalf("delivered %q after the restart", got)
			}
			t.Logf("the relay delivered again %v after Redis restarted", time.Since(restarted).Round(time.Millisecond))
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}
