package shop

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// /api and /mcp both refuse a request without the key or with a wrong one.
func TestKeyRequired(t *testing.T) {
	t.Parallel()
	_, _, hs := newTestService(t)
	for _, key := range []string{"", "k-wrong-key-0123456789"} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", hs.URL+"/api/orders/1", nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("GET /api/orders/1 with key %q: %d %q", key, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		if status, body := mcpRaw(t, hs, key, "tools/list", "", nil); status != http.StatusUnauthorized {
			t.Errorf("tools/list with key %q: %d %s", key, status, body)
		}
	}
	if r := mcp(t, hs, testKey, "tools/list", nil); len(r.Content) != 0 {
		t.Errorf("tools/list with the key: %+v", r)
	}
}

// Every tool carries the hints of what it does.
func TestToolHints(t *testing.T) {
	t.Parallel()
	svc, _, _ := newTestService(t)
	type hints struct {
		ReadOnly, Destructive, Idempotent, OpenWorld bool
	}
	got := map[string]hints{}
	for _, ti := range svc.MCP.Catalog().Tools() {
		got[ti.Name] = hints{ti.ReadOnly, ti.Destructive, ti.Idempotent, ti.OpenWorld}
	}
	read := hints{ReadOnly: true, Idempotent: true}
	want := map[string]hints{
		"get_product": read, "list_products": read, "aggregate_products": read, "get_customer": read, "list_customers": read,
		"get_order": read, "list_orders": read, "order_history": read, "restock_report": read,
		"best_sellers": read, "customer_spend": read,
		"place_order":  {},
		"cancel_order": {Destructive: true, Idempotent: true},
		// Shipping cannot be undone: a shipped order can no longer be
		// cancelled, so a client should ask before it runs.
		"ship_order": {Destructive: true, Idempotent: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hints (-want +got):\n%s", diff)
	}
}

// The prompts build their messages, and their arguments complete: the
// customer from the database, the category from its enum; the order
// template's id completes from the orders.
func TestPromptsAndCompletions(t *testing.T) {
	t.Parallel()
	_, db, hs := newTestService(t)
	var email, name string
	if err := db.QueryRowContext(t.Context(), "SELECT email, name FROM customers WHERE id = 15").Scan(&email, &name); err != nil {
		t.Fatal(err)
	}
	r := mcp(t, hs, testKey, "prompts/get", map[string]any{"name": "order_summary", "arguments": map[string]any{"customer": email}})
	if len(r.Messages) != 3 || !strings.Contains(string(r.Messages[0]), "Summarize the orders of "+name+" (customer 15") {
		t.Errorf("order_summary: %s", r.Messages)
	}
	if status, body := mcpRaw(t, hs, testKey, "prompts/get", "order_summary", map[string]any{"name": "order_summary", "arguments": map[string]any{"customer": "nobody@example.com"}}); !strings.Contains(string(body), "no customer has the e-mail address") {
		t.Errorf("order_summary of nobody: %d %s", status, body)
	}
	r = mcp(t, hs, testKey, "prompts/get", map[string]any{"name": "restock_plan", "arguments": map[string]any{"category": "tea"}})
	if len(r.Messages) != 1 || !strings.Contains(string(r.Messages[0]), `category == \"tea\"`) {
		t.Errorf("restock_plan: %s", r.Messages)
	}

	prefix := email[:3]
	var want []string
	rows, _ := db.QueryContext(t.Context(), "SELECT email FROM customers ORDER BY email")
	for rows.Next() {
		var e string
		_ = rows.Scan(&e)
		if strings.HasPrefix(e, prefix) && len(want) < maxSuggestions {
			want = append(want, e)
		}
	}
	_ = rows.Close()
	complete := func(ref map[string]any, arg, value string) []string {
		return mcp(t, hs, testKey, "completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": value}}).Completion.Values
	}
	if diff := cmp.Diff(want, complete(map[string]any{"type": "ref/prompt", "name": "order_summary"}, "customer", strings.ToUpper(prefix))); diff != "" {
		t.Errorf("customer completions for %q (-want +got):\n%s", prefix, diff)
	}
	if got := complete(map[string]any{"type": "ref/prompt", "name": "order_summary"}, "customer", "%"); len(got) != 0 {
		t.Errorf("completing %% (a LIKE wildcard) suggests %q", got)
	}
	if diff := cmp.Diff([]string{"coffee", "cups"}, complete(map[string]any{"type": "ref/prompt", "name": "restock_plan"}, "category", "c")); diff != "" {
		t.Errorf("category completions:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"24", "240"}, sorted(complete(map[string]any{"type": "ref/resource", "uri": "shop://orders/{id}"}, "id", "24"))); diff != "" {
		t.Errorf("order id completions:\n%s", diff)
	}
}

func sorted(s []string) []string { slices.Sort(s); return s }

// The resources are listed and read: the policies, the tools' schemas and
// the entities'.
func TestResources(t *testing.T) {
	t.Parallel()
	svc, _, hs := newTestService(t)
	inv, err := svc.Inventory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	groups := inv.Groups
	inv.Groups = nil
	if want := (Inventory{Tools: 14, Prompts: 2, Resources: 4, Templates: 3}); !reflect.DeepEqual(inv, want) {
		t.Errorf("inventory %+v, want %+v", inv, want)
	}
	var names []string
	for _, g := range groups {
		names = append(names, g.Name)
	}
	if want := []string{"customers", "orders", "products", "shop"}; !slices.Equal(names, want) {
		t.Errorf("groups %v, want %v", names, want)
	}
	r := mcp(t, hs, testKey, "resources/read", map[string]any{"uri": "shop://policies"})
	if !strings.Contains(r.Contents[0].Text, "A shipped order cannot be cancelled") {
		t.Errorf("shop://policies: %+v", r.Contents)
	}
	r = mcp(t, hs, testKey, "resources/read", map[string]any{"uri": "shop://schemas/place_order"})
	var schemas struct{ Input, Output map[string]any }
	if err := json.Unmarshal([]byte(r.Contents[0].Text), &schemas); err != nil || schemas.Input["properties"] == nil || schemas.Output == nil {
		t.Errorf("shop://schemas/place_order: %+v", r.Contents)
	}
	r = mcp(t, hs, testKey, "resources/read", map[string]any{"uri": "shop://entities"})
	if !strings.Contains(r.Contents[0].Text, "customer") || !strings.Contains(r.Contents[0].Text, "product") {
		t.Errorf("shop://entities: %.300s", r.Contents[0].Text)
	}
	if status, body := mcpRaw(t, hs, testKey, "resources/read", "shop://orders/99999", map[string]any{"uri": "shop://orders/99999"}); !strings.Contains(string(body), "resource not found") {
		t.Errorf("shop://orders/99999: %d %s", status, body)
	}
}

// The REST API lists every problem of a bad order at once.
func TestPlaceOrderValidation(t *testing.T) {
	t.Parallel()
	_, _, hs := newTestService(t)
	var p struct {
		Status int
		Errors []struct{ Location string }
	}
	code := rest(t, hs, "POST", "/api/orders", `{"customer_id":0,"lines":[{"sku":"tea","qty":0},{"sku":"TEA-001","qty":1},{"sku":"TEA-001","qty":1}]}`, &p)
	var at []string
	for _, e := range p.Errors {
		at = append(at, e.Location)
	}
	want := []string{"body.customer_id", "body.lines[0].sku", "body.lines[0].qty", "body.lines[2].sku"}
	if code != http.StatusUnprocessableEntity || !slices.Equal(at, want) {
		t.Errorf("bad order: %d, errors at %q; want 422 at %q", code, at, want)
	}
	if code := rest(t, hs, "POST", "/api/orders", `{"customer_id":1,"lines":[],"admin":true}`, nil); code != http.StatusBadRequest {
		t.Errorf("unknown field: %d, want 400", code)
	}
}

// A body must be one JSON value: a second one after the order (or the
// cancellation) is refused, and nothing is ordered or cancelled.
func TestBodiesAreOneValue(t *testing.T) {
	t.Parallel()
	_, db, hs := newTestService(t)
	orders := count(t, db, "SELECT COUNT(*) FROM orders")
	var p problem
	if code := rest(t, hs, "POST", "/api/orders", `{"customer_id":1,"lines":[{"sku":"TEA-001","qty":1}]} {"customer_id":2}`, &p); code != http.StatusBadRequest || !strings.Contains(p.Detail, "after the first JSON value") {
		t.Errorf("an order and more: %d %+v, want 400", code, p)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM orders"); n != orders {
		t.Errorf("%d orders, want %d: nothing ordered", n, orders)
	}
	placed := count(t, db, "SELECT id FROM orders WHERE status = 'placed' ORDER BY id LIMIT 1")
	if code := rest(t, hs, "POST", "/api/orders/"+itoa(int64(placed))+"/cancel", `{"reason":"a"}[]`, &p); code != http.StatusBadRequest {
		t.Errorf("a cancellation and more: %d %+v, want 400", code, p)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM orders WHERE id = ? AND status = 'placed'", placed); n != 1 {
		t.Errorf("order %d was cancelled", placed)
	}
}
