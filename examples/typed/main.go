// Command typed serves a typed tool over stdio: the input schema and its
// validation come from the SearchIn struct's tags, the output schema from
// the Order struct, and refusals reach the model as sentences it can act on.
//
//	go run ./examples/typed
package main

import (
	"context"
	"log/slog"
	"os"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// SearchIn is the input of search_orders.
type SearchIn struct {
	Query string `json:"query" doc:"Text to look for in the customer's name." minLength:"1"`
	Limit int    `json:"limit,omitzero" doc:"At most this many orders." minimum:"1" maximum:"50" default:"10"`
}

// Order is an order as tools return it.
type Order struct {
	ID       string `json:"id" doc:"The order's id."`
	Customer string `json:"customer"`
	Status   string `json:"status" enum:"open,shipped,cancelled"`
}

// Orders is the result of search_orders.
type Orders struct {
	Orders []Order `json:"orders"`
}

var orders = []Order{
	{ID: "A-1", Customer: "Ada Lovelace", Status: "open"},
	{ID: "A-2", Customer: "Alan Turing", Status: "shipped"},
}

func main() {
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
	ferry.AddTool(srv, ferry.Tool{Name: "search_orders", Description: "Searches orders by customer name.", ReadOnly: true, OpenWorld: ferry.HintNo},
		func(ctx context.Context, in SearchIn) (Orders, error) {
			// in.Limit is 10 when the model leaves it out: the server fills
			// in the default tag before the handler runs.
			var out Orders
			for _, o := range orders {
				if strings.Contains(strings.ToLower(o.Customer), strings.ToLower(in.Query)) && len(out.Orders) < in.Limit {
					out.Orders = append(out.Orders, o)
				}
			}
			return out, nil
		})
	ferry.AddTool(srv, ferry.Tool{Name: "cancel_order", Description: "Cancels an order that has not shipped.", Idempotent: true, OpenWorld: ferry.HintNo},
		func(ctx context.Context, in struct {
			ID string `json:"id" doc:"The order's id, as search_orders returns it."`
		}) (Order, error) {
			for i, o := range orders {
				if o.ID != in.ID {
					continue
				}
				if o.Status == "shipped" {
					return Order{}, ferry.Conflict("order " + o.ID + " has shipped; it can no longer be cancelled")
				}
				orders[i].Status = "cancelled"
				return orders[i], nil
			}
			return Order{}, ferry.NotFound("no order " + in.ID + "; use search_orders to find its id")
		})
	if err := srv.Run(context.Background(), &ferry.StdioTransport{}); err != nil {
		slog.Error("serve", "err", err)
		os.Exit(1)
	}
}
