package openapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/openapi"
	"github.com/ferry-mcp/ferry/route"
)

func TestTagGroup(t *testing.T) {
	t.Parallel()
	tests := []struct{ tag, want string }{
		{"pets", "pets"},
		{"Pet Store", "pet_store"},
		{"pet-store", "pet_store"},
		{"userAccounts", "user_accounts"},
		{"  Orders & Invoices ", "orders_invoices"},
		{"v2", "v2"},
		{"", ""},
		{"!!!", ""},
		{"caf\u00e9", "caf"},
		{strings.Repeat("long", 20), ""},
	}
	for _, tt := range tests {
		if got := openapi.TagGroup(tt.tag); got != tt.want {
			t.Errorf("TagGroup(%q) = %q, want %q", tt.tag, got, tt.want)
		}
	}
}

// groupsDoc has an operation of each case: a tag, a tag that needs
// rewriting, a tag that gives no group, no tag.
const groupsDoc = `openapi: 3.1.0
info: {title: Shop, version: "1"}
paths:
  /orders/{id}:
    get:
      operationId: getOrder
      tags: [Order History, billing]
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /orders:
    post:
      operationId: createOrder
      tags: [Order History]
      responses: {"201": {description: ok}}
  /stock/{sku}:
    get:
      operationId: getStock
      tags: ["!!!"]
      parameters: [{name: sku, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /stock:
    get:
      operationId: listStock
      responses: {"200": {description: ok}}
  /health:
    get:
      operationId: health
      tags: [ops]
      responses: {"200": {description: ok}}
`

// bindGroups binds groupsDoc with opts and ropts and returns each tool's
// groups as the server's catalog has them.
func bindGroups(t *testing.T, opts *openapi.Options, ropts *route.Options) map[string][]string {
	t.Helper()
	d, err := openapi.Parse([]byte(groupsDoc))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, p := range []string{"GET /orders/{id}", "POST /orders", "GET /stock/{sku}", "GET /stock", "GET /health"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	}
	srv := ferry.NewServer("s", "1", nil)
	if _, err := openapi.Bind(srv, mux, d, opts, ropts); err != nil {
		t.Fatal(err)
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, tl := range srv.Catalog().Tools() {
		out[tl.Name] = tl.Groups
	}
	return out
}

func checkGroups(t *testing.T, got, want map[string][]string) {
	t.Helper()
	for name, w := range want {
		if g, ok := got[name]; !ok || !slices.Equal(g, w) || g == nil {
			t.Errorf("%s: groups %q, want %q", name, g, w)
		}
	}
}

// A tool is in its operation's first tag's group; an operation with no
// tag, or whose first tag gives no group, is in its route's, as a route-
// bound tool is; ToolOptions.Groups wins over both.
func TestBindGroups(t *testing.T) {
	t.Parallel()
	got := bindGroups(t, &openapi.Options{Tools: map[string]openapi.ToolOptions{
		"health": {Groups: []string{}},
	}}, nil)
	checkGroups(t, got, map[string][]string{
		"get_order":    {"order_history"}, // the first tag's, not billing, not the path's "orders"
		"create_order": {"order_history"},
		"get_stock":    {"stock"}, // "!!!" gives none: the path's
		"list_stock":   {"stock"}, // no tag: the path's
		"health":       {},        // empty: none
	})
}

// The binding's groups (route.Options.Groups) replace the tags' and the
// routes', and ToolOptions.Groups still wins over them.
func TestBindGroupsOfTheBinding(t *testing.T) {
	t.Parallel()
	got := bindGroups(t, &openapi.Options{Tools: map[string]openapi.ToolOptions{
		"getOrder": {Groups: []string{"orders", "billing"}},
	}}, &route.Options{Groups: []string{"shop"}})
	checkGroups(t, got, map[string][]string{
		"get_order":    {"billing", "orders"}, // sorted, as the server keeps them
		"create_order": {"shop"},
		"get_stock":    {"shop"},
		"list_stock":   {"shop"},
		"health":       {"shop"},
	})
}

// Document.Tools, which ferry lint -openapi reports, names the tags'
// groups too; an operation left to its route has none yet.
func TestToolsGroups(t *testing.T) {
	t.Parallel()
	d, err := openapi.Parse([]byte(groupsDoc))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := d.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, tl := range tools {
		got[tl.Tool.Name] = tl.Tool.Groups
	}
	if g := got["get_order"]; !slices.Equal(g, []string{"order_history"}) {
		t.Errorf("get_order: groups %q, want [order_history]", g)
	}
	if g := got["list_stock"]; g != nil {
		t.Errorf("list_stock: groups %q, want nil (its route's, when bound)", g)
	}
}
