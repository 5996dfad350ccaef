package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/client"
)

// unresponsive is a legacy HTTP server that answers initialize and its
// notification, and then nothing: a tools/call, the notifications/cancelled
// that gives it up and the DELETE that ends the session all wait until
// the test ends.
func unresponsive(t *testing.T) string {
	t.Helper()
	gone := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&m)
		switch {
		case r.Method == http.MethodPost && m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s-1")
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"slow","version":"1"}}}`, m.ID)
		case r.Method == http.MethodPost && m.Method == "notifications/initialized":
			w.WriteHeader(http.StatusAccepted)
		default:
			select {
			case <-gone:
			case <-r.Context().Done():
			}
		}
	}))
	t.Cleanup(func() { close(gone); ts.Close() })
	return ts.URL
}

// A call returns when its context ends, however long the server takes
// to accept the notifications/cancelled that gives it up.
func TestCallReturnsAtItsDeadline(t *testing.T) {
	c, err := client.DialHTTP(t.Context(), unresponsive(t), &client.Options{Protocol: client.Version20251125, Limits: client.Limits{CloseTimeout: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = c.CallTool(ctx, "hold", nil)
	// Generous: the notice used to hold the call for 2s more.
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("the call returned after %v with a deadline of 200ms", d)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
}

// Close waits no longer than Limits.CloseTimeout for a server that does
// not answer the DELETE ending its session, nor the notice of a call
// given up just before.
func TestCloseBoundedByCloseTimeout(t *testing.T) {
	c, err := client.DialHTTP(t.Context(), unresponsive(t), &client.Options{Protocol: client.Version20251125, Limits: client.Limits{CloseTimeout: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, _ = c.CallTool(ctx, "hold", nil) // its notice hangs
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	// Generous: the DELETE used to get 5s.
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v with a CloseTimeout of 300ms", d)
	}
}
