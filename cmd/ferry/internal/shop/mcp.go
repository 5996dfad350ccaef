package shop

import (
	"context"
	"database/sql"
	_ "embed" // the shop's queries
	"fmt"
	"net/http"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/route"
)

// instructions tell the model how to use the shop.
const instructions = `This is a coffee and tea shop. Prices are in euro cents (1250 is 12.50 EUR).
Find products with list_products (search, filter, orderBy), count and total them per category with aggregate_products, and find customers with list_customers.
best_sellers ranks the products by units sold since a day; customer_spend totals one customer's orders.
place_order takes a customer_id and lines of sku and qty; it checks stock and either places the whole order or nothing.
An order can be cancelled until it ships. Read an order with get_order or the resource shop://orders/{id}.`

// OrderRef names an order.
type OrderRef struct {
	ID int64 `json:"id" doc:"The order's number." minimum:"1"`
}

// ListOrdersIn is the input of list_orders: it travels as the query
// string of GET /api/orders.
type ListOrdersIn struct {
	CustomerID int64  `json:"customer_id,omitzero" doc:"Only this customer's orders." minimum:"1"`
	Status     string `json:"status,omitzero" doc:"Only orders with this status." enum:"placed,shipped,cancelled"`
	Limit      int    `json:"limit,omitzero" doc:"At most this many, newest first." minimum:"1" maximum:"100" default:"20"`
}

// CancelIn is the input of cancel_order: the id fills the path, the
// reason the body.
type CancelIn struct {
	ID     int64  `json:"id" doc:"The order's number." minimum:"1"`
	Reason string `json:"reason,omitzero" doc:"Why it is cancelled, for the order's history." maxLength:"200"`
}

// newMCP returns the shop's MCP server: entity tools over db, tools
// bound to the REST API's routes (api is mux behind its key middleware),
// a job tool, prompts and resources, observed by obs. It leaves the per-caller limits at
// their defaults, which ferry demo's start-up lines print.
func newMCP(ctx context.Context, db *sql.DB, store *Store, api http.Handler, mux *http.ServeMux, obs ferry.Observer, o Options) (*ferry.Server, error) {
	srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{
		Observer:          obs,
		Logger:            o.Logger,
		Instructions:      instructions,
		CompletionHandler: completer(db),
		Apps:              &ferry.AppOptions{},
	})
	if err := addEntities(ctx, srv, db); err != nil {
		return nil, err
	}
	ro := route.Options{Prefix: "/api", Router: route.ServeMux(mux), Forward: []string{"X-API-Key"}}
	if o.RouteKey != "" {
		ro.Header = http.Header{"Authorization": {"Bearer " + o.RouteKey}}
	}
	addOrderTools(route.New(srv, api, &ro))
	addPrompts(srv, store)
	addResources(srv, store)
	addApps(srv)
	srv.AddSchemaResources("shop")
	return srv, nil
}

// queriesFile is the shop's own SQL, served as tools (best_sellers,
// customer_spend), as ferry serve -queries serves it.
//
//go:embed queries/shop.sql
var queriesFile string

// addEntities registers the read-only entity tools of products and
// customers, searching their full-text indexes, the tools of the shop's
// queries, and the entity resources. Writes go through the REST API,
// where the shop's rules are.
func addEntities(ctx context.Context, srv *ferry.Server, db *sql.DB) error {
	set, err := entity.NewSet(srv, db, &entity.SetOptions{Engine: entity.SQLite, ReadOnly: true})
	if err != nil {
		return err
	}
	products, err := entity.Of[Product]()
	if err != nil {
		return err
	}
	customers, err := entity.Of[Customer]()
	if err != nil {
		return err
	}
	for _, e := range []struct {
		ent  *entity.Entity
		desc string
	}{
		{products, "The shop's products: coffee, tea, brewing gear, cups, snacks and gifts, with price and stock."},
		{customers, "The shop's customers, with where their orders ship to."},
	} {
		searcher, err := entity.FindSearchIndex(ctx, db, entity.SQLite, e.ent)
		if err != nil {
			return err
		}
		if _, err := set.Add(e.ent, &entity.Options{Description: e.desc, Searcher: searcher}); err != nil {
			return err
		}
	}
	qs, err := entity.ParseQueries("queries/shop.sql", queriesFile)
	if err != nil {
		return err
	}
	for _, q := range qs {
		if err := set.AddQuery(ctx, q); err != nil {
			return err
		}
	}
	set.AddResources("shop")
	return nil
}

// addOrderTools binds the order tools to the REST API's routes, and adds
// the restock job, which asks the API about several products.
func addOrderTools(b *route.Binding) {
	route.AddToolOut[OrderRef, Order](b, ferry.Tool{Name: "get_order", Title: "Get an order",
		Description: "Fetches one order by number, with its lines, status and total.", ClosedWorld: true}, "GET /orders/{id}")
	route.AddToolOut[ListOrdersIn, OrderList](b, ferry.Tool{Name: "list_orders", Title: "List orders",
		Description: "Lists orders newest first, optionally of one customer or one status, without their lines.", ClosedWorld: true}, "GET /orders")
	route.AddToolOut[OrderRef, History](b, ferry.Tool{Name: "order_history", Title: "Order history",
		Description: "Lists what happened to an order, oldest first: placed, shipped or cancelled, when and by whom.", ClosedWorld: true}, "GET /orders/{id}/history")
	route.AddToolOut[PlaceOrderIn, Order](b, ferry.Tool{Name: "place_order", Title: "Place an order",
		Description: "Places an order for a customer and takes its units from stock. Every line is checked first: if any product is unknown or short of stock, nothing is ordered and each such line is named. " +
			"Send an idempotency_key so that a retry never orders twice.",
		Additive: true, ClosedWorld: true}, "POST /orders")
	route.AddToolOut[CancelIn, Order](b, ferry.Tool{Name: "cancel_order", Title: "Cancel an order",
		Description: "Cancels an order that has not shipped and puts its units back in stock. A shipped order is refused as a conflict; cancelling a cancelled order changes nothing.", Idempotent: true, ClosedWorld: true}, "POST /orders/{id}/cancel")
	route.AddToolOut[OrderRef, Order](b, ferry.Tool{Name: "ship_order", Title: "Ship an order",
		Description: "Marks a placed order shipped, as the warehouse does when it leaves; it cannot be undone, and a shipped order can no longer be cancelled. A cancelled order is refused as a conflict; shipping a shipped order changes nothing.", Idempotent: true, ClosedWorld: true}, "POST /orders/{id}/ship")
	route.AddJob(b, ferry.Tool{Name: "restock_report", Title: "Restock report",
		Description: "Checks the stock of several products against their reorder levels and suggests how many units to reorder of each low one.",
		ReadOnly:    true, ClosedWorld: true, App: RestockAppURI}, restockReport)
}

// euros formats cents as euros.
func euros(cents int64) string { return fmt.Sprintf("%d.%02d EUR", cents/100, cents%100) }
