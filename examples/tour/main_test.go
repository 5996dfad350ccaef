package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/client"
)

const testKey = "k-tour-test-0123456789abcdef"

// serveTour starts the tour on a test server over a SQLite file in a
// temporary directory.
func serveTour(t *testing.T) *httptest.Server {
	t.Helper()
	t.Setenv("TOUR_API_KEY", testKey)
	db, err := openDB(context.Background(), "file:"+filepath.Join(t.TempDir(), "tour.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`INSERT INTO products (sku, name, price) VALUES ('SAW-1', 'Hand saw', 12.5), ('PEN-1', 'Pen', 1.2)`); err != nil {
		t.Fatal(err)
	}
	h, _, err := newHandler(db, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// dial connects to the tour with key in the given protocol version ("" for
// the default: modern, falling back to legacy).
func dial(t *testing.T, ts *httptest.Server, key, protocol string) (*client.Client, error) {
	t.Helper()
	c, err := client.DialHTTP(context.Background(), ts.URL+"/mcp", &client.Options{
		Protocol: protocol, Header: http.Header{"Authorization": {"Bearer " + key}}, HTTPClient: ts.Client(),
	})
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// The tour's tools answer as the README says, in both eras, and only
// with the key.
func TestTour(t *testing.T) {
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(protocol, func(t *testing.T) { testTour(t, protocol) })
	}
}

func testTour(t *testing.T, protocol string) {
	ts := serveTour(t)
	c, err := dial(t, ts, testKey, protocol)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, args string
		isError    bool
		want       string
	}{
		{"search_orders", `{"query":"ada"}`, false, `"Ada Lovelace"`},
		{"search_orders", `{"query":"nobody"}`, true, "not-found: No order matches"},
		// The README quotes both violations.
		{"search_orders", `{"query":"","limit":80}`, true, "query: must be at least 1 character, got 0"},
		{"search_orders", `{"query":"","limit":80}`, true, "limit: must be at most 50, got 80"},
		{"get_order", `{"id":"A-2"}`, false, `"shipped"`},
		{"get_order", `{"id":"Z-9"}`, true, "not-found: No such order."},
		{"cancel_order", `{"id":"A-1"}`, false, `"cancelled"`},
		{"cancel_order", `{"id":"A-2"}`, true, "conflict: The order has shipped"},
		{"list_products", `{"filter":"price < 5.0"}`, false, `"PEN-1"`},
		{"list_products", `{"filter":"cost < 5.0"}`, true, "cost"},
		{"get_product", `{"sku":"SAW-1"}`, false, `"Hand saw"`},
	}
	for _, tt := range tests {
		res, err := c.CallTool(context.Background(), tt.tool, json.RawMessage(tt.args))
		if err != nil {
			t.Fatalf("%s %s: %v", tt.tool, tt.args, err)
		}
		if got := res.Text(); res.IsError != tt.isError || !strings.Contains(got, tt.want) {
			t.Errorf("%s %s: isError %v, %q; want isError %v and %q", tt.tool, tt.args, res.IsError, got, tt.isError, tt.want)
		}
	}
	var re *client.Error
	if _, err := dial(t, ts, "k-wrong-key-0123456789abcdef", protocol); !errors.As(err, &re) || re.HTTPStatus() != http.StatusUnauthorized {
		t.Errorf("a wrong key: %v, want HTTP 401", err)
	}
	resp, err := ts.Client().Get(ts.URL + "/api/orders/A-1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the REST API without a key: HTTP %d, want 401", resp.StatusCode)
	}
}
