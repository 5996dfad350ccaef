package shop

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/google/go-cmp/cmp"
)

// A new order whose second line is short of stock writes nothing: no
// order, no line, no event, and the first line's stock is untouched.
func TestPlaceOrderIsAtomic(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	s := NewStore(db, nil)
	before := dump(t, db)
	var short int64
	if err := db.QueryRowContext(t.Context(), "SELECT stock FROM products WHERE sku = 'COF-002'").Scan(&short); err != nil {
		t.Fatal(err)
	}
	_, _, err := s.PlaceOrder(t.Context(), 3, []NewLine{{SKU: "TEA-001", Qty: 2}, {SKU: "COF-002", Qty: short + 1}, {SKU: "XYZ-001", Qty: 1}}, "", "test")
	var lines linesError
	if !errors.As(err, &lines) {
		t.Fatalf("PlaceOrder: %v, want a linesError", err)
	}
	want := linesError{{1, "only " + itoa(short) + " of COF-002 in stock, " + itoa(short+1) + " ordered"}, {2, "no product has SKU XYZ-001"}}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, dump(t, db)); diff != "" {
		t.Errorf("a failed order changed the database (-before +after):\n%s", diff)
	}
	if _, _, err := s.PlaceOrder(t.Context(), 99999, []NewLine{{SKU: "TEA-001", Qty: 1}}, "k-1", "test"); !errors.Is(err, errNotFound) {
		t.Errorf("unknown customer: %v, want errNotFound", err)
	}
	if diff := cmp.Diff(before, dump(t, db)); diff != "" {
		t.Errorf("an order of an unknown customer changed the database:\n%s", diff)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// The same atomicity through the place_order tool: the model reads a
// conflict naming the line, and the order count does not move.
func TestPlaceOrderToolRefusesShortStock(t *testing.T) {
	t.Parallel()
	_, db, hs := newTestService(t)
	orders := count(t, db, "SELECT COUNT(*) FROM orders")
	stock := count(t, db, "SELECT stock FROM products WHERE sku = 'TEA-001'")
	var low string // a product with fewer than 50 units, the most one line may order
	if err := db.QueryRowContext(t.Context(), "SELECT sku FROM products WHERE stock < 50 AND sku != 'TEA-001' ORDER BY id LIMIT 1").Scan(&low); err != nil {
		t.Fatal(err)
	}
	r := call(t, hs, "place_order", map[string]any{"customer_id": 3, "lines": []any{
		map[string]any{"sku": "TEA-001", "qty": 1}, map[string]any{"sku": low, "qty": 50}}})
	if !r.IsError || !strings.HasPrefix(r.Content[0].Text, "conflict: The order cannot be filled; nothing was ordered.") ||
		!strings.Contains(r.Content[0].Text, "\n- lines[1]: only") {
		t.Errorf("place_order with a short line: %+v, want the line named by the argument the model sent, lines[1]", r)
	}
	// A line the REST API refuses, not the tool's schema: it too is named
	// as the model wrote it, not as the body the API read.
	r = call(t, hs, "place_order", map[string]any{"customer_id": 3, "lines": []any{
		map[string]any{"sku": "TEA-001", "qty": 1}, map[string]any{"sku": "TEA-001", "qty": 2}}})
	if !r.IsError || !strings.Contains(r.Content[0].Text, "\n- lines[1].sku: is on an earlier line already") || strings.Contains(r.Content[0].Text, "body.") {
		t.Errorf("place_order with a repeated product: %+v, want lines[1].sku named", r)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM orders"); n != orders {
		t.Errorf("orders: %d, want %d", n, orders)
	}
	if n := count(t, db, "SELECT stock FROM products WHERE sku = 'TEA-001'"); n != stock {
		t.Errorf("TEA-001 stock: %d, want %d", n, stock)
	}
	// And a good order takes its stock and is recorded as the agent's.
	r = call(t, hs, "place_order", map[string]any{"customer_id": 3, "lines": []any{map[string]any{"sku": "TEA-001", "qty": 2}}})
	var o Order
	if r.IsError || json.Unmarshal(r.StructuredContent, &o) != nil || o.Status != "placed" || o.PlacedAt != "2026-06-01T12:00:00Z" {
		t.Fatalf("place_order: %+v", r)
	}
	if n := count(t, db, "SELECT stock FROM products WHERE sku = 'TEA-001'"); n != stock-2 {
		t.Errorf("TEA-001 stock after ordering 2: %d, want %d", n, stock-2)
	}
	var h History
	if rest(t, hs, "GET", "/api/orders/"+itoa(o.ID)+"/history", "", &h) != 200 || len(h.Events) != 1 ||
		h.Events[0].Note != "by tester through the place_order tool" {
		t.Errorf("history of the new order: %+v", h)
	}
}

// A shipped order cannot be cancelled: the REST API answers 409 and the
// tool a conflict refusal, and nothing changes. A placed order is
// cancelled, its stock returned; cancelling again changes nothing.
func TestCancel(t *testing.T) {
	t.Parallel()
	_, db, hs := newTestService(t)
	var shipped, placed int64
	if err := db.QueryRowContext(t.Context(), "SELECT MIN(id) FROM orders WHERE status = 'shipped'").Scan(&shipped); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(t.Context(), "SELECT MIN(id) FROM orders WHERE status = 'placed'").Scan(&placed); err != nil {
		t.Fatal(err)
	}
	before := dump(t, db)
	var p struct{ Status int }
	if code := rest(t, hs, "POST", "/api/orders/"+itoa(shipped)+"/cancel", `{"reason":"test"}`, &p); code != http.StatusConflict || p.Status != 409 {
		t.Errorf("REST cancel of shipped order %d: %d %+v", shipped, code, p)
	}
	r := call(t, hs, "cancel_order", map[string]any{"id": shipped, "reason": "customer asked"})
	if !r.IsError || !strings.HasPrefix(r.Content[0].Text, "conflict: Order "+itoa(shipped)+" has shipped") {
		t.Errorf("cancel_order of shipped order: %+v", r)
	}
	if diff := cmp.Diff(before, dump(t, db)); diff != "" {
		t.Errorf("refused cancellations changed the database:\n%s", diff)
	}

	stockOf := func() map[string]int {
		out := map[string]int{}
		rows, err := db.QueryContext(t.Context(), "SELECT p.sku, p.stock FROM products p JOIN order_lines l ON l.product_id = p.id WHERE l.order_id = ?", placed)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var sku string
			var n int
			_ = rows.Scan(&sku, &n)
			out[sku] = n
		}
		return out
	}
	stock := stockOf()
	var o Order
	r = call(t, hs, "cancel_order", map[string]any{"id": placed, "reason": "customer asked"})
	if r.IsError || json.Unmarshal(r.StructuredContent, &o) != nil || o.Status != "cancelled" {
		t.Fatalf("cancel_order of placed order %d: %+v", placed, r)
	}
	want := map[string]int{}
	for _, l := range o.Lines {
		want[l.SKU] = stock[l.SKU] + int(l.Qty)
	}
	if diff := cmp.Diff(want, stockOf()); diff != "" {
		t.Errorf("stock after cancelling (-want +got):\n%s", diff)
	}
	again := dump(t, db)
	if r := call(t, hs, "cancel_order", map[string]any{"id": placed}); r.IsError {
		t.Errorf("cancelling again: %+v", r)
	}
	if diff := cmp.Diff(again, dump(t, db)); diff != "" {
		t.Errorf("cancelling a cancelled order changed the database:\n%s", diff)
	}
	if r := call(t, hs, "ship_order", map[string]any{"id": placed}); !r.IsError || !strings.HasPrefix(r.Content[0].Text, "conflict:") {
		t.Errorf("shipping a cancelled order: %+v", r)
	}
	var h History
	rest(t, hs, "GET", "/api/orders/"+itoa(placed)+"/history", "", &h)
	if last := h.Events[len(h.Events)-1]; last.Event != "cancelled" || last.Note != "by the shop: customer asked (tester through the cancel_order tool)" {
		t.Errorf("last event: %+v", last)
	}
}

// The REST API, the route-bound tools, the entity tools and the order
// resource answer the same data.
func TestRESTAndMCPAgree(t *testing.T) {
	t.Parallel()
	_, _, hs := newTestService(t)
	for _, id := range []int64{1, 17, 240} {
		var fromREST, fromTool, fromResource Order
		if code := rest(t, hs, "GET", "/api/orders/"+itoa(id), "", &fromREST); code != 200 {
			t.Fatalf("GET /api/orders/%d: %d", id, code)
		}
		r := call(t, hs, "get_order", map[string]any{"id": id})
		if err := json.Unmarshal(r.StructuredContent, &fromTool); err != nil {
			t.Fatalf("get_order %d: %+v", id, r)
		}
		res := mcp(t, hs, testKey, "resources/read", map[string]any{"uri": orderURI(id)})
		if err := json.Unmarshal([]byte(res.Contents[0].Text), &fromResource); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(fromREST, fromTool); diff != "" {
			t.Errorf("order %d: REST and get_order differ:\n%s", id, diff)
		}
		if diff := cmp.Diff(fromREST, fromResource); diff != "" {
			t.Errorf("order %d: REST and %s differ:\n%s", id, orderURI(id), diff)
		}
		if len(fromREST.Lines) == 0 {
			t.Errorf("order %d has no lines", id)
		}
	}
	var fromREST Product
	rest(t, hs, "GET", "/api/products/TEA-003", "", &fromREST)
	r := call(t, hs, "get_product", map[string]any{"sku": "TEA-003"})
	var fromEntity struct{ Data Product }
	if err := json.Unmarshal(r.StructuredContent, &fromEntity); err != nil {
		t.Fatalf("get_product: %+v", r)
	}
	if diff := cmp.Diff(fromREST, fromEntity.Data); diff != "" || fromREST.SKU != "TEA-003" {
		t.Errorf("REST and get_product differ:\n%s", diff)
	}
	var list OrderList
	rest(t, hs, "GET", "/api/orders?status=placed&limit=5", "", &list)
	r = call(t, hs, "list_orders", map[string]any{"status": "placed", "limit": 5})
	var fromList OrderList
	if err := json.Unmarshal(r.StructuredContent, &fromList); err != nil || len(list.Orders) != 5 {
		t.Fatalf("list_orders: %+v", r)
	}
	if diff := cmp.Diff(list, fromList); diff != "" {
		t.Errorf("REST and list_orders differ:\n%s", diff)
	}
}

// list_products filters, searches and pages.
func TestEntityTools(t *testing.T) {
	t.Parallel()
	_, db, hs := newTestService(t)
	var page struct {
		Data   []Product
		Paging struct {
			TotalCount int
			HasMore    bool
		}
	}
	r := call(t, hs, "list_products", map[string]any{"filter": `category == "tea" && stock < reorder_level`, "orderBy": "stock", "top": 3})
	if r.IsError {
		// A filter comparing two fields may not be supported; a plain one must be.
		r = call(t, hs, "list_products", map[string]any{"filter": `category == "tea" && stock < 20`, "orderBy": "stock", "top": 3})
	}
	if err := json.Unmarshal(r.StructuredContent, &page); err != nil || r.IsError || len(page.Data) == 0 {
		t.Fatalf("list_products filter: %+v", r)
	}
	for i, p := range page.Data {
		if p.Category != "tea" || (i > 0 && p.Stock < page.Data[i-1].Stock) {
			t.Errorf("list_products: %+v out of the filter or the order", p)
		}
	}
	r = call(t, hs, "list_products", map[string]any{"search": "jasmine"})
	if err := json.Unmarshal(r.StructuredContent, &page); err != nil || len(page.Data) == 0 {
		t.Fatalf("list_products search: %+v", r)
	}
	for _, p := range page.Data {
		if !strings.Contains(strings.ToLower(p.Name+p.Description), "jasmine") {
			t.Errorf("search jasmine found %q", p.Name)
		}
	}
	r = call(t, hs, "list_customers", map[string]any{"filter": `country == "PT"`, "top": 5})
	var customers struct {
		Data   []Customer
		Paging struct{ TotalCount int }
	}
	if err := json.Unmarshal(r.StructuredContent, &customers); err != nil {
		t.Fatal(err)
	}
	if want := count(t, db, "SELECT COUNT(*) FROM customers WHERE country = 'PT'"); customers.Paging.TotalCount != want || len(customers.Data) != min(5, want) {
		t.Errorf("list_customers country PT: total %d, %d rows; want total %d", customers.Paging.TotalCount, len(customers.Data), want)
	}
	if r := call(t, hs, "list_products", map[string]any{"filter": `name == "x"; DROP TABLE products`}); !r.IsError {
		t.Errorf("a filter with SQL in it was not refused: %+v", r)
	}
}

// Orders racing for the last units of a product: exactly as many succeed
// as there are units, and the stock ends at zero, never below.
func TestPlaceOrderConcurrently(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	s := NewStore(db, nil)
	const units, buyers = 5, 16
	if _, err := db.ExecContext(t.Context(), "UPDATE products SET stock = ? WHERE sku = 'CUP-001'", units); err != nil {
		t.Fatal(err)
	}
	results := make(chan error, buyers)
	for i := range buyers {
		go func() {
			_, _, err := s.PlaceOrder(t.Context(), int64(1+i), []NewLine{{SKU: "CUP-001", Qty: 1}}, "", "race")
			results <- err
		}()
	}
	placed := 0
	for range buyers {
		var lines linesError
		switch err := <-results; {
		case err == nil:
			placed++
		case errors.As(err, &lines):
		default:
			t.Errorf("PlaceOrder: %v", err)
		}
	}
	if placed != units {
		t.Errorf("%d orders placed for %d units", placed, units)
	}
	if n := count(t, db, "SELECT stock FROM products WHERE sku = 'CUP-001'"); n != 0 {
		t.Errorf("stock = %d, want 0", n)
	}
}

// place_order with an idempotency key orders once however often it is
// sent; the same key with another order is refused.
func TestPlaceOrderIdempotent(t *testing.T) {
	t.Parallel()
	_, db, hs := newTestService(t)
	orders := count(t, db, "SELECT COUNT(*) FROM orders")
	stock := count(t, db, "SELECT stock FROM products WHERE sku = 'TEA-001'")
	args := map[string]any{"customer_id": 3, "lines": []any{map[string]any{"sku": "TEA-001", "qty": 2}}, "idempotency_key": "retry-7f3a"}
	var first, again Order
	if r := call(t, hs, "place_order", args); r.IsError || json.Unmarshal(r.StructuredContent, &first) != nil {
		t.Fatalf("place_order: %+v", r)
	}
	if r := call(t, hs, "place_order", args); r.IsError || json.Unmarshal(r.StructuredContent, &again) != nil {
		t.Fatalf("place_order again: %+v", r)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("the retry answered another order:\n%s", diff)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM orders"); n != orders+1 {
		t.Errorf("%d orders after two sends, want %d", n, orders+1)
	}
	if n := count(t, db, "SELECT stock FROM products WHERE sku = 'TEA-001'"); n != stock-2 {
		t.Errorf("stock %d, want %d: taken once", n, stock-2)
	}
	args["customer_id"] = 4
	// The refusal names the key as the tool's argument reads, not as the
	// REST header the route sends it in.
	if r := call(t, hs, "place_order", args); !r.IsError || !strings.HasPrefix(r.Content[0].Text, "invalid: This idempotency key was used for order") ||
		strings.Contains(r.Content[0].Text, "Idempotency-Key") {
		t.Errorf("the key with another customer: %+v", r)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM orders"); n != orders+1 {
		t.Errorf("%d orders after a refused reuse, want %d", n, orders+1)
	}
}

// The API counts the idempotency key and the cancel reason in characters,
// as the tools' schemas (maxLength) do: what a tool accepts, the API
// accepts too. A cancel body with a field the API does not know is
// refused, as a new order's is.
func TestLimitsCountCharacters(t *testing.T) {
	t.Parallel()
	_, _, hs := newTestService(t)
	key := strings.Repeat("é", 100)
	r := call(t, hs, "place_order", map[string]any{"customer_id": 3, "lines": []any{map[string]any{"sku": "TEA-001", "qty": 1}}, "idempotency_key": key})
	var o Order
	if r.IsError || json.Unmarshal(r.StructuredContent, &o) != nil {
		t.Fatalf("place_order with a key of 100 characters: %+v", r)
	}
	if r := call(t, hs, "cancel_order", map[string]any{"id": o.ID, "reason": strings.Repeat("é", 200)}); r.IsError {
		t.Errorf("cancel_order with a reason of 200 characters: %+v", r)
	}
	var p problem
	if status := rest(t, hs, "POST", "/api/orders/2/cancel", `{"reason": "late", "force": true}`, &p); status != http.StatusBadRequest || !strings.Contains(p.Detail, `unknown field "force"`) {
		t.Errorf("a cancel with an unknown field: %d %+v", status, p)
	}
}

// An idempotency key belongs to the caller who sent it: another caller's
// order with the same key is a new order, never the first caller's order
// answered back, nor a refusal that names it.
func TestIdempotencyKeysAreTheCallers(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	const keyA, keyB = "k-alice-0123456789", "k-bob-0123456789ab"
	svc, err := New(t.Context(), db, &Options{Keys: map[string]*ferry.Principal{keyA: {Subject: "alice"}, keyB: {Subject: "bob"}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(svc.Handler())
	t.Cleanup(hs.Close)
	place := func(apiKey, body string) (int, Order) {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", hs.URL+"/api/orders", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+apiKey)
		req.Header.Set("Idempotency-Key", "order-1")
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var o Order
		_ = json.NewDecoder(resp.Body).Decode(&o)
		return resp.StatusCode, o
	}
	same := `{"customer_id": 3, "lines": [{"sku": "TEA-001", "qty": 1}]}`
	statusA, a := place(keyA, same)
	statusB, b := place(keyB, same)
	if statusA != http.StatusCreated || statusB != http.StatusCreated || a.ID == b.ID {
		t.Errorf("alice: %d order %d; bob with her key: %d order %d; want two new orders", statusA, a.ID, statusB, b.ID)
	}
	if status, c := place(keyB, `{"customer_id": 4, "lines": [{"sku": "TEA-001", "qty": 1}]}`); status != http.StatusUnprocessableEntity || c.ID != 0 {
		t.Errorf("bob reusing his own key for another order: %d %+v, want 422", status, c)
	}
	if status, again := place(keyA, same); status != http.StatusOK || again.ID != a.ID {
		t.Errorf("alice's retry: %d order %d, want 200 and order %d", status, again.ID, a.ID)
	}
}
