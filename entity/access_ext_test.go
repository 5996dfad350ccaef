package entity_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// TestAccessPerOperation gives products read, write and delete callers
// and a query a scope of its own: each caller sees, calls and reads the
// schema of what its scopes and roles allow, and nothing else.
func TestAccessPerOperation(t *testing.T) {
	db := sqliteShop(t)
	srv := quiet()
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := entity.Add[Category](set, &entity.Options{Access: entity.Access{Write: entity.Callers{Roles: []string{"admin"}}}}); err != nil {
		t.Fatal(err)
	}
	access := entity.Access{
		Read:   entity.Callers{Scopes: []string{"shop.read"}},
		Write:  entity.Callers{Scopes: []string{"shop.read", "shop.write"}},
		Delete: entity.Callers{Roles: []string{"admin"}},
	}
	if _, err := entity.Add[Product](set, &entity.Options{Access: access}); err != nil {
		t.Fatal(err)
	}
	if err := set.AddQuery(t.Context(), &entity.Query{Name: "skus", Mode: entity.Many, SQL: "SELECT sku FROM products",
		Access: entity.Callers{Scopes: []string{"reports"}}}); err != nil {
		t.Fatal(err)
	}
	set.AddResources("shop")
	h := ferry.NewHTTPHandler(srv, nil)
	// X-Scopes and X-Roles become the caller's, as an authenticator's
	// principal would carry them.
	auth := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := &ferry.Principal{Subject: "u", Scopes: fields(r.Header.Get("X-Scopes")), Roles: fields(r.Header.Get("X-Roles"))}
		h.ServeHTTP(w, r.WithContext(ferry.WithPrincipal(r.Context(), p)))
	})
	as := func(scopes, roles string) *ferrytest.Client {
		return ferrytest.DialHandler(t, auth, &ferrytest.Options{Header: http.Header{"X-Scopes": {scopes}, "X-Roles": {roles}}})
	}
	tests := []struct {
		name, scopes, roles string
		want                []string
	}{
		{"nobody", "", "", []string{"get_category", "list_categories"}},
		{"reader", "shop.read", "", []string{"get_category", "get_product", "list_categories", "list_products"}},
		{"writer", "shop.read shop.write", "", []string{"create_product", "get_category", "get_product", "list_categories", "list_products", "update_product"}},
		{"admin", "", "admin", []string{"create_category", "delete_category", "delete_product", "get_category", "list_categories", "update_category"}},
		{"reports", "reports", "", []string{"get_category", "list_categories", "skus"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := as(tt.scopes, tt.roles)
			var got []string
			for _, tl := range c.ListTools(context.Background()) {
				got = append(got, tl.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("tools = %v; want %v", got, tt.want)
			}
			// A tool the caller cannot see answers as an unknown one.
			if !slices.Contains(tt.want, "list_products") {
				var res json.RawMessage
				err := c.Raw().Call(context.Background(), "tools/call", map[string]any{"name": "list_products", "arguments": map[string]any{}}, &res)
				if err == nil || !strings.Contains(err.Error(), "list_products") {
					t.Errorf("list_products = %s, %v; want the unknown tool's error", res, err)
				}
			}
			// The entity's schema is there only with one of its tools.
			res, err := c.Raw().ReadResource(context.Background(), "shop://entities/product")
			if seen := slices.ContainsFunc(tt.want, func(n string) bool { return strings.HasSuffix(n, "_product") || n == "list_products" }); seen != (err == nil) {
				t.Errorf("shop://entities/product: %v, %v; want readable %v", res, err, seen)
			}
		})
	}
}

func fields(s string) []string { return strings.Fields(s) }

// An aggregate reads records: its tool takes the read callers, so a
// reader may total what he may list, and a caller who may not read sees
// no aggregate, even when writes are open to him.
func TestAccessAggregateIsARead(t *testing.T) {
	db := sqliteShop(t)
	if _, err := db.Exec(`CREATE TABLE sales (id INTEGER PRIMARY KEY, region TEXT NOT NULL, amount REAL NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	srv := quiet()
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	access := entity.Access{
		Read:  entity.Callers{Scopes: []string{"sales.read"}},
		Write: entity.Callers{Scopes: []string{"sales.write"}},
	}
	if _, err := entity.Add[Sale](set, &entity.Options{Access: access}); err != nil {
		t.Fatal(err)
	}
	h := ferry.NewHTTPHandler(srv, nil)
	auth := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := &ferry.Principal{Subject: "u", Scopes: fields(r.Header.Get("X-Scopes"))}
		h.ServeHTTP(w, r.WithContext(ferry.WithPrincipal(r.Context(), p)))
	})
	for scopes, want := range map[string]bool{"sales.read": true, "sales.write": false, "": false} {
		c := ferrytest.DialHandler(t, auth, &ferrytest.Options{Header: http.Header{"X-Scopes": {scopes}}})
		seen := false
		for _, tl := range c.ListTools(context.Background()) {
			seen = seen || tl.Name == "aggregate_sales"
		}
		if seen != want {
			t.Errorf("scopes %q: aggregate_sales listed %v; want %v", scopes, seen, want)
		}
	}
}
