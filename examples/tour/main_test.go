package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
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
	h, err := newHandler(db, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// callTool calls a tool with a 2026-07-28 request and returns the HTTP
// status and the result.
func callTool(t *testing.T, ts *httptest.Server, key, name, args string) (int, map[string]any) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name, "Authorization": "Bearer " + key} {
		req.Header.Set(k, v)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	var msg struct {
		Result map[string]any  `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil || msg.Error != nil {
		t.Fatalf("%s: %s (%v)", name, raw, err)
	}
	return resp.StatusCode, msg.Result
}

// text returns a result's first text content.
func text(r map[string]any) string {
	c, _ := r["content"].([]any)
	if len(c) == 0 {
		return ""
	}
	m, _ := c[0].(map[string]any)
	s, _ := m["text"].(string)
	return s
}

func TestTour(t *testing.T) {
	ts := serveTour(t)
	tests := []struct {
		tool, args string
		isError    bool
		want       string
	}{
		{"search_orders", `{"query":"ada"}`, false, `"Ada Lovelace"`},
		{"search_orders", `{"query":"nobody"}`, true, "not-found: No order matches"},
		{"search_orders", `{"query":"","limit":80}`, true, "limit: must be at most 50"},
		{"get_order", `{"id":"A-2"}`, false, `"shipped"`},
		{"get_order", `{"id":"Z-9"}`, true, "not-found: No such order."},
		{"cancel_order", `{"id":"A-1"}`, false, `"cancelled"`},
		{"cancel_order", `{"id":"A-2"}`, true, "conflict: The order has shipped"},
		{"list_products", `{"filter":"price < 5.0"}`, false, `"PEN-1"`},
		{"list_products", `{"filter":"cost < 5.0"}`, true, "cost"},
		{"get_product", `{"sku":"SAW-1"}`, false, `"Hand saw"`},
	}
	for _, tt := range tests {
		status, res := callTool(t, ts, testKey, tt.tool, tt.args)
		if status != http.StatusOK {
			t.Fatalf("%s %s: HTTP %d", tt.tool, tt.args, status)
		}
		isError, _ := res["isError"].(bool)
		if got := text(res); isError != tt.isError || !strings.Contains(got, tt.want) {
			t.Errorf("%s %s: isError %v, %q; want isError %v and %q", tt.tool, tt.args, isError, got, tt.isError, tt.want)
		}
	}
	if status, _ := callTool(t, ts, "k-wrong-key-0123456789abcdef", "search_orders", `{"query":"ada"}`); status != http.StatusUnauthorized {
		t.Errorf("a wrong key: HTTP %d, want 401", status)
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
