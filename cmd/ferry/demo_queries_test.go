package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/google/go-cmp/cmp"
)

// ferry demo serves the shop's own SQL (internal/shop/queries) as tools:
// best_sellers and customer_spend answer what the seeded rows hold,
// worked out by hand once (the seed is the same every time) and again
// here from the rows.
func TestDemoServesItsQueries(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	stderr := newLineWriter(startLine)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	e := &env{stdin: strings.NewReader(""), stdout: &strings.Builder{}, stderr: stderr, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"demo", "--http", "127.0.0.1:0", "--db", db}, e) }()
	var m []string
	select {
	case m = <-stderr.found:
	case code := <-done:
		t.Fatalf("demo exited %d: %s", code, stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("demo did not listen within 60s: %s", stderr)
	}
	defer func() {
		cancel()
		<-done
	}()
	c := ferrytest.DialHTTP(t, m[1]+"/mcp", &ferrytest.Options{Header: http.Header{"Authorization": {"Bearer " + m[2]}}})
	call := func(name string, args map[string]any) any {
		t.Helper()
		res := c.CallTool(t.Context(), name, args)
		var out struct {
			IsError    bool `json:"isError"`
			Structured struct {
				Data any `json:"data"`
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(res.Raw, &out); err != nil || out.IsError {
			t.Fatalf("%s: %s", name, res.Raw)
		}
		return out.Structured.Data
	}
	// The orders since 2026-03-01, none cancelled: order 239 holds 4
	// COF-005 at 2000; order 240 holds 3 TEA-010 at 1200, 1 BRW-001 at
	// 1500, 4 BRW-002 at 1050 and 5 BRW-003 at 550. By units, then sku:
	want := []any{
		map[string]any{"sku": "BRW-003", "name": "French press 1 l", "units": 5.0, "revenue_cents": 2750.0},
		map[string]any{"sku": "BRW-002", "name": "Paper filters, 100 pack", "units": 4.0, "revenue_cents": 4200.0},
		map[string]any{"sku": "COF-005", "name": "Decaf Mexico beans 250 g", "units": 4.0, "revenue_cents": 8000.0},
	}
	if d := cmp.Diff(want, call("best_sellers", map[string]any{"since": "2026-03-01", "top": 3})); d != "" {
		t.Errorf("best_sellers (-want +got):\n%s", d)
	}
	// Hedy Lamarr's orders: 35 (15600, shipped), 87 (2650, cancelled),
	// 115 (6650, shipped) and 157 (16350, shipped): 3 orders, 38600.
	spend := map[string]any{"name": "Hedy Lamarr", "email": "hedy.lamarr3@example.com", "orders": 3.0, "spent_cents": 38600.0}
	if d := cmp.Diff(spend, call("customer_spend", map[string]any{"email": "hedy.lamarr3@example.com"})); d != "" {
		t.Errorf("customer_spend (-want +got):\n%s", d)
	}
	if !strings.Contains(stderr.String(), "14 tools") {
		t.Errorf("start-up lines: %s", stderr)
	}
}
