package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
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
