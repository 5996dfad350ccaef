package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/google/go-cmp/cmp"
)

// shop serves a freshly seeded shop over the real HTTP handler.
func shop(t *testing.T, readOnly bool) string {
	t.Helper()
	db, err := openShop(t.Context(), filepath.Join(t.TempDir(), "shop.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	srv, err := newServer(t.Context(), db, readOnly, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// answer is a tools/call answer: a result or a JSON-RPC error.
type answer struct {
	Result struct {
		IsError           bool `json:"isError"`
		Content           []struct{ Text string }
		StructuredContent json.RawMessage `json:"structuredContent"`
		Tools             []struct{ Name string }
	}
	Error *struct{ Message string }
}

func (a *answer) text() string {
	if len(a.Result.Content) == 0 {
		return ""
	}
	return a.Result.Content[0].Text
}

// rpc posts a modern (2026-07-28) request and decodes the answer.
func rpc(t *testing.T, url, method, name, params string) *answer {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	if params == "" {
		params = "{" + meta + "}"
	} else {
		params = params[:len(params)-1] + "," + meta + "}"
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %s %v", method, name, resp.StatusCode, b, err)
	}
	var a answer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%s %s: %s: %v", method, name, b, err)
	}
	return &a
}

func call(t *testing.T, url, tool, args string) *answer {
	t.Helper()
	return rpc(t, url, "tools/call", tool, `{"name":"`+tool+`","arguments":`+args+`}`)
}

// page is a list result.
type page struct {
	Data   []Product
	Paging struct {
		TotalCount, Skip, Top int
		HasMore               bool
	}
}

func list(t *testing.T, url, args string) page {
	t.Helper()
	a := call(t, url, "list_products", args)
	if a.Error != nil || a.Result.IsError {
		t.Fatalf("list_products %s: %+v %s", args, a.Error, a.text())
	}
	var p page
	if err := json.Unmarshal(a.Result.StructuredContent, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func skus(ps []Product) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.SKU)
	}
	return out
}

func TestListWithFilter(t *testing.T) {
	url := shop(t, false)
	tests := []struct {
		args string
		want []string
	}{
		{`{"filter":"price < 15.0 && category_id == 1"}`, []string{"HT-001", "HT-002", "HT-003", "HT-004"}},
		{`{"filter":"name.contains(\"saw\") || name.startsWith(\"jig\")"}`, []string{"HT-002", "PT-004"}},
		{`{"filter":"stock == null"}`, []string{"HT-010", "PT-010", "FA-010"}},
		{`{"filter":"stock != 0 && category_id == 3", "orderBy":"price desc", "top":3}`, []string{"FA-010", "FA-009", "FA-008"}},
		{`{"filter":"name == \"SAW\""}`, []string{}}, // case-sensitive, as in CEL
		{`{"search":"impact"}`, []string{"PT-010"}},
		{`{"search":"workshop", "filter":"category_id == 2", "top":2}`, []string{"PT-001", "PT-002"}},
	}
	for _, tt := range tests {
		p := list(t, url, tt.args)
		if diff := cmp.Diff(tt.want, skus(p.Data)); diff != "" {
			t.Errorf("list_products %s (-want +got):\n%s", tt.args, diff)
		}
	}
	a := call(t, url, "list_products", `{"filter":"price > 10 AND stock = 3"}`)
	if !a.Result.IsError || !strings.HasPrefix(a.text(), "invalid:") || !strings.Contains(a.text(), "&&") {
		t.Errorf("a filter in SQL's words = %s; want an invalid refusal with a hint", a.text())
	}
}

func TestListPaging(t *testing.T) {
	url := shop(t, false)
	seen := map[string]int{}
	var last page
	for skip := 0; ; skip += 7 {
		last = list(t, url, `{"top":7,"skip":`+itoa(skip)+`,"orderBy":"name"}`)
		for _, p := range last.Data {
			seen[p.SKU]++
		}
		if last.Paging.TotalCount != 30 {
			t.Errorf("totalCount %d at skip %d, want 30", last.Paging.TotalCount, skip)
		}
		if !last.Paging.HasMore {
			break
		}
		if skip > 30 {
			t.Fatal("hasMore never turned false")
		}
	}
	if len(seen) != 30 {
		t.Errorf("the pages held %d products, want 30", len(seen))
	}
	for sku, n := range seen {
		if n != 1 {
			t.Errorf("%s came %d times", sku, n)
		}
	}
	if len(last.Data) != 2 {
		t.Errorf("the last page held %d products, want 2", len(last.Data))
	}
	if a := call(t, url, "list_products", `{"top":1001}`); !a.Result.IsError || !strings.Contains(a.text(), "1000") {
		t.Errorf("top 1001 = %s; want a refusal naming the bound", a.text())
	}
}

func TestGetByKeyAndNaturalKey(t *testing.T) {
	url := shop(t, false)
	for _, args := range []string{`{"sku":"PT-001"}`, `{"id":11}`} {
		a := call(t, url, "get_product", args)
		var got struct{ Data Product }
		if err := json.Unmarshal(a.Result.StructuredContent, &got); err != nil || a.Result.IsError {
			t.Fatalf("get_product %s: %s %v", args, a.text(), err)
		}
		if got.Data.Name != "drill" || got.Data.ID != 11 || got.Data.CategoryID != 2 {
			t.Errorf("get_product %s = %+v", args, got.Data)
		}
	}
	if a := call(t, url, "get_category", `{"name":"Fasteners"}`); a.Result.IsError || !strings.Contains(a.text(), `"id":3`) {
		t.Errorf("get_category by name = %s", a.text())
	}
	if a := call(t, url, "get_product", `{"sku":"ZZ-999"}`); !a.Result.IsError || !strings.HasPrefix(a.text(), "not-found:") {
		t.Errorf("get_product of a missing sku = %s", a.text())
	}
}

func TestWrites(t *testing.T) {
	url := shop(t, false)
	a := call(t, url, "create_product", `{"sku":"HT-011","name":"bradawl","price":3.5,"stock":4,"category_id":1}`)
	if a.Result.IsError || !strings.Contains(a.text(), `"sku":"HT-011"`) {
		t.Fatalf("create_product = %s", a.text())
	}
	if a := call(t, url, "update_product", `{"sku":"HT-011","stock":9}`); a.Result.IsError || !strings.Contains(a.text(), `"stock":9`) {
		t.Errorf("update_product = %s", a.text())
	}
	if p := list(t, url, `{"search":"bradawl"}`); len(p.Data) != 1 || *p.Data[0].Stock != 9 || p.Data[0].Price != 3.5 {
		t.Errorf("after the update, a search finds %+v", p.Data)
	}
	if a := call(t, url, "delete_product", `{"sku":"HT-011"}`); a.Result.IsError {
		t.Errorf("delete_product = %s", a.text())
	}
	if p := list(t, url, `{"search":"bradawl"}`); len(p.Data) != 0 {
		t.Errorf("after the delete, a search finds %+v", p.Data)
	}
}

func TestWriteRefusals(t *testing.T) {
	url := shop(t, false)
	tests := []struct{ tool, args, prefix, has string }{
		{"create_product", `{"sku":"HT-001","name":"another hammer","price":1,"category_id":1}`, "conflict:", `sku "HT-001" exists`},
		{"create_product", `{"sku":"hammer","name":"","price":-1,"category_id":1}`, "invalid arguments", "sku"},
		{"create_product", `{"sku":"HT-012","name":"awl","price":1,"category_id":99}`, "invalid:", "category_id: 99 refers to no category"},
		{"update_product", `{"sku":"ZZ-999","stock":1}`, "not-found:", `sku "ZZ-999"`},
		{"update_product", `{"sku":"HT-001","stock":-5}`, "invalid arguments", "stock"},
		{"delete_product", `{"id":999}`, "not-found:", "id 999"},
		{"update_category", `{"name":"Fasteners","id":1}`, "conflict:", `name "Fasteners" exists`},
	}
	for _, tt := range tests {
		a := call(t, url, tt.tool, tt.args)
		if a.Error != nil || !a.Result.IsError || !strings.HasPrefix(a.text(), tt.prefix) || !strings.Contains(a.text(), tt.has) {
			t.Errorf("%s %s = %+v %s; want a refusal starting %q naming %q", tt.tool, tt.args, a.Error, a.text(), tt.prefix, tt.has)
		}
	}
	// Categories have no delete tool.
	if a := call(t, url, "delete_category", `{"id":1}`); a.Error == nil && !a.Result.IsError {
		t.Errorf("delete_category ran: %s", a.text())
	}
	if p := list(t, url, `{"top":100}`); len(p.Data) != 30 {
		t.Errorf("after the refusals the shop has %d products, want 30", len(p.Data))
	}
}

func TestReadOnly(t *testing.T) {
	url := shop(t, true)
	var names []string
	for _, tool := range rpc(t, url, "tools/list", "", "").Result.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	want := []string{"get_category", "get_product", "list_categories", "list_products"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools of the read-only shop (-want +got):\n%s", diff)
	}
	a := call(t, url, "create_product", `{"sku":"HT-011","name":"bradawl","price":3.5,"category_id":1}`)
	if a.Error == nil && !a.Result.IsError {
		t.Errorf("create_product ran on the read-only shop: %s", a.text())
	}
}

func TestSeedOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.db")
	for range 2 {
		db, err := openShop(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM products").Scan(&n); err != nil || n != 30 {
			t.Errorf("the shop has %d products (%v), want 30", n, err)
		}
		_ = db.Close()
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
