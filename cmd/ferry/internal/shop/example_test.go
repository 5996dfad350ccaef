package shop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/cmd/ferry/internal/shop"
)

// The shop over a new database: its REST API answers with the key, and
// its MCP server is at /mcp of the same handler.
func ExampleNew() {
	dir, err := os.MkdirTemp("", "shop-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	db, err := shop.Open(ctx, filepath.Join(dir, "shop.db"), nil) // seeds it: the same rows every time
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	const key = "k-example-0123456789"
	svc, err := shop.New(ctx, db, &shop.Options{Keys: map[string]*ferry.Principal{key: {Subject: "example"}}})
	if err != nil {
		log.Fatal(err)
	}
	inv, err := svc.Inventory(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d tools, %d prompts, %d resources, %d templates\n", inv.Tools, inv.Prompts, inv.Resources, inv.Templates)

	req := httptest.NewRequest("GET", "/api/products/TEA-003", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	w := httptest.NewRecorder()
	svc.Handler().ServeHTTP(w, req)
	var p shop.Product
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		log.Fatal(err)
	}
	fmt.Println(w.Code, p.SKU, p.Name, p.Category)

	req = httptest.NewRequest("GET", "/api/products/TEA-003", nil) // no key
	w = httptest.NewRecorder()
	svc.Handler().ServeHTTP(w, req)
	fmt.Println(w.Code)
	// Output:
	// 14 tools, 2 prompts, 4 resources, 3 templates
	// 200 TEA-003 Sencha 100 g tea
	// 401
}

// The store under the shop's tools and API: an order placed with a fixed
// clock, placed again with the same idempotency key (nothing changes),
// then cancelled, its units back in stock.
func ExampleStore() {
	dir, err := os.MkdirTemp("", "shop-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	db, err := shop.Open(ctx, filepath.Join(dir, "shop.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	st := shop.NewStore(db, func() time.Time { return time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC) })

	before, err := st.Product(ctx, "TEA-003")
	if err != nil {
		log.Fatal(err)
	}
	lines := []shop.NewLine{{SKU: "TEA-003", Qty: 2}}
	o, replayed, err := st.PlaceOrder(ctx, 1, lines, "example-key", "")
	if err != nil {
		log.Fatal(err)
	}
	again, replayedAgain, err := st.PlaceOrder(ctx, 1, lines, "example-key", "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(o.Status, o.PlacedAt, replayed, again.ID == o.ID, replayedAgain)

	placed, _ := st.Product(ctx, "TEA-003")
	if _, err := st.Cancel(ctx, o.ID, "changed my mind"); err != nil {
		log.Fatal(err)
	}
	after, _ := st.Product(ctx, "TEA-003")
	fmt.Println(before.Stock-placed.Stock, after.Stock == before.Stock)
	h, err := st.History(ctx, o.ID)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range h.Events {
		fmt.Printf("%s %q\n", e.Event, e.Note)
	}
	// Output:
	// placed 2026-07-28T09:00:00Z false true true
	// 2 true
	// placed ""
	// cancelled "by the shop: changed my mind"
}
