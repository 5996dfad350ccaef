package main

import (
	"context"
	"log/slog"
	"net"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// dialOnLog is a log destination that, when "serving" is logged, dials
// the logged address at that moment.
type dialOnLog struct {
	mu     sync.Mutex // guards the fields below: slog may write from any goroutine
	url    string
	dialed error
	logged chan struct{}
}

var servingURL = regexp.MustCompile(`msg=serving url=http://(\S+)/mcp`)

func (d *dialOnLog) Write(p []byte) (int, error) {
	m := servingURL.FindSubmatch(p)
	if m == nil {
		return len(p), nil
	}
	conn, err := net.DialTimeout("tcp", string(m[1]), time.Second)
	if err == nil {
		conn.Close()
	}
	d.mu.Lock()
	d.url, d.dialed = string(m[1]), err
	d.mu.Unlock()
	close(d.logged)
	return len(p), nil
}

func TestServingIsLoggedOnceBoundWithTheRealPort(t *testing.T) {
	d := &dialOnLog{logged: make(chan struct{})}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- serveHTTP(ctx, "127.0.0.1:0", ferry.NewHTTPHandler(ferry.NewServer("t", "1", nil), nil), slog.New(slog.NewTextHandler(d, nil)), "stateful", false)
	}()
	select {
	case <-d.logged:
	case err := <-done:
		t.Fatalf("serveHTTP returned %v before logging", err)
	case <-time.After(10 * time.Second):
		t.Fatal("nothing logged within 10s")
	}
	d.mu.Lock()
	addr, dialed := d.url, d.dialed
	d.mu.Unlock()
	if _, port, _ := net.SplitHostPort(addr); port == "" || port == "0" {
		t.Errorf("logged address %q, want the bound port", addr)
	}
	if dialed != nil {
		t.Errorf("dialing the logged address while logging: %v, want it bound already", dialed)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serveHTTP after cancel: %v", err)
	}
}
