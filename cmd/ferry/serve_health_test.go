package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/ferrytest"
)

// tcpProxy forwards connections to a server, and can stop (closing every
// connection, as a database that goes away does) and start again on the
// same address: a database outage the test controls, never the
// machine's own server.
type tcpProxy struct {
	t      *testing.T
	target string
	addr   string

	mu    sync.Mutex // guards ln and conns
	ln    net.Listener
	conns []net.Conn
}

func startProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	p := &tcpProxy{t: t, target: target, addr: "127.0.0.1:0"}
	p.start()
	t.Cleanup(p.stop)
	return p
}

// start listens at p.addr (a free port the first time) and forwards.
func (p *tcpProxy) start() {
	p.t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				_ = c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
			go func() { _, _ = io.Copy(c, up); _ = c.Close() }()
		}
	}()
}

// stop closes the listener and every connection.
func (p *tcpProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

// readyz is /readyz's answer: its status and the named check's error
// ("" when it passed), failing when the check is absent.
func readyz(t *testing.T, base, check string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var b struct {
		Checks []struct {
			Name, Error string
			OK          bool
		}
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("%d %q: %v", resp.StatusCode, raw, err)
	}
	for _, c := range b.Checks {
		if c.Name == check {
			if !c.OK && c.Error == "" {
				t.Errorf("check %s failed without a reason: %s", check, raw)
			}
			return resp.StatusCode, c.Error, string(raw)
		}
	}
	t.Fatalf("no check %q: %s", check, raw)
	return 0, "", ""
}

// waitReadyz polls /readyz until it answers want, for at most 15s (the
// results are reused for a second).
func waitReadyz(t *testing.T, base, check string, want int) (string, string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, why, raw := readyz(t, base, check)
		if code == want {
			return why, raw
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz did not answer %d within 15s: %d %s", want, code, raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ferry serve's /readyz follows its PostgreSQL database: not ready,
// naming it, while the database does not answer (a proxy in front of it
// stopped), ready again once it does; /healthz answers throughout, and
// the start-up lines say where both are.
func TestServeReadinessFollowsTheDatabase(t *testing.T) {
	d := postgresTestDB(t)
	d.shop(t)
	u, err := url.Parse(d.url)
	if err != nil {
		t.Fatal(err)
	}
	proxy := startProxy(t, u.Host)
	u.Host = proxy.addr
	s := startServe(t, []string{"-db", u.String(), "-http", "127.0.0.1:0"})
	base := strings.TrimSuffix(s.url, "/mcp")
	const check = "database test"
	if want := "ferry serve: health: " + base + "/healthz (alive), " + base + "/readyz (ready: not draining and " + check + " answering)\n"; !strings.Contains(s.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
	}
	if code, why, raw := readyz(t, base, check); code != http.StatusOK || why != "" {
		t.Fatalf("with the database up: %d %s", code, raw)
	}

	proxy.stop()
	why, raw := waitReadyz(t, base, check, http.StatusServiceUnavailable)
	t.Logf("with the database down: %s", raw)
	if why == "" || !strings.Contains(raw, `"status":"not ready"`) {
		t.Errorf("with the database down: %s", raw)
	}
	if strings.Contains(raw, u.Host) && strings.Contains(raw, "postgres://") {
		t.Errorf("the body shows the database URL: %s", raw)
	}
	resp, err := http.Get(base + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("liveness with the database down: %v %v", resp, err)
	}
	_ = resp.Body.Close()

	proxy.start()
	waitReadyz(t, base, check, http.StatusOK)
	if r := s.call(t, "list_products", map[string]any{}); r.IsError {
		t.Errorf("a call once the database is back: %s", r.text())
	}
}

// When ferry serve is stopped, /readyz answers 503 naming the drain while
// a call still runs, and the call finishes: readiness fails from the
// start of the drain, not once the process is gone.
func TestServeReadinessFailsDuringTheDrain(t *testing.T) {
	d := postgresTestDB(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "slow.sql"), []byte("-- name: slow :one\n-- Sleeps three seconds.\nSELECT pg_sleep(3)::text AS slept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var stderr ferrytest.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, getenv: envFunc(nil)}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "-db", d.url, "-tables", "", "-queries", dir, "-http", "127.0.0.1:0"}, e)
	}()
	var endpoint string
	for deadline := time.Now().Add(60 * time.Second); endpoint == ""; time.Sleep(10 * time.Millisecond) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			endpoint = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("ferry serve did not listen: %s", stderr.String())
		}
	}
	base := strings.TrimSuffix(endpoint, "/mcp")
	if code, _, raw := readyz(t, base, "drain"); code != http.StatusOK {
		t.Fatalf("before the stop: %s", raw)
	}

	answer := make(chan string, 1)
	go func() {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "slow")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answer <- err.Error()
			return
		}
		raw, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		answer <- string(raw)
	}()
	// The call runs once its statement does.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := d.db.QueryRow("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(3)%' AND pid <> pg_backend_pid()").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the call did not start: %s", stderr.String())
		}
	}

	stop()
	why, raw := waitReadyz(t, base, "drain", http.StatusServiceUnavailable)
	if !strings.Contains(why, "shutting down") {
		t.Errorf("during the drain: %s", raw)
	}
	select {
	case a := <-answer:
		t.Fatalf("the call ended before the probe: %s", a)
	default:
	}
	if a := <-answer; !strings.Contains(a, "slept") {
		t.Errorf("the call's answer: %s", a)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("ferry serve exited %d: %s", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ferry serve did not stop")
	}
}
