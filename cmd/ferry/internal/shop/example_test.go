package shop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"

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
	// 11 tools, 2 prompts, 4 resources, 3 templates
	// 200 TEA-003 Sencha 100 g tea
	// 401
}
