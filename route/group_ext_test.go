package route_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
)

func TestRouteGroup(t *testing.T) {
	t.Parallel()
	tests := []struct{ pattern, want string }{
		{"GET /orders/{id}", "orders"},
		{"POST /api/v2/orders", "orders"},
		{"POST /v1/invoices/{id}/pay", "invoices"},
		{"GET /{id}", ""},
		{"GET /", ""},
		{"GET /api", ""},
		{"GET /caf\u00e9/menu", ""},
		{"DELETE /stock-items/{sku}", "stock-items"},
	}
	for _, tt := range tests {
		if got := route.RouteGroup(tt.pattern); got != tt.want {
			t.Errorf("RouteGroup(%q) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
}

// toolGroups returns each tool's groups, as the server's catalog has them.
func toolGroups(srv *ferry.Server) map[string][]string {
	out := map[string][]string{}
	for _, tl := range srv.Catalog().Tools() {
		out[tl.Name] = tl.Groups
	}
	return out
}

func TestBindingGroups(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	ok := func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }
	mux.HandleFunc("GET /orders/{id}", ok)
	mux.HandleFunc("POST /api/v1/stock/{sku}", ok)
	mux.HandleFunc("GET /{id}", ok)
	srv := ferry.NewServer("s", "1", nil)
	in := func(arg string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{"` + arg + `":{"type":"string"}},"required":["` + arg + `"]}`)
	}
	b := route.New(srv, mux, nil)
	b.AddTool(ferry.Tool{Name: "get_order", Description: "Gets an order.", RawInputSchema: in("id")}, "GET /orders/{id}")
	b.AddTool(ferry.Tool{Name: "add_stock", Description: "Adds stock.", Groups: []string{"warehouse"}, RawInputSchema: in("sku")}, "POST /api/v1/stock/{sku}")
	b.AddTool(ferry.Tool{Name: "get_any", Description: "Gets anything.", RawInputSchema: in("id")}, "GET /{id}")
	route.AddJob(b, ferry.Tool{Name: "close_month", Description: "Closes a month."}, closeMonth)
	other := route.New(srv, mux, &route.Options{Groups: []string{"admin"}})
	other.AddTool(ferry.Tool{Name: "get_order_admin", Description: "Gets an order.", RawInputSchema: in("id")}, "GET /orders/{id}")
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	got := toolGroups(srv)
	want := map[string][]string{"get_order": {"orders"}, "add_stock": {"warehouse"}, "get_any": {},
		"close_month": {"route_test"}, "get_order_admin": {"admin"}}
	for name, w := range want {
		if !slices.Equal(got[name], w) || got[name] == nil {
			t.Errorf("%s: groups %q, want %q", name, got[name], w)
		}
	}
}

// closeMonth is a job declared in this package: its group is the
// package's, as a tool registered directly would have.
func closeMonth(context.Context, struct{}) (string, error) { return "closed", nil }
