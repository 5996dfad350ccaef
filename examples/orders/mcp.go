package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
)

// OrderIn names an order.
type OrderIn struct {
	ID string `json:"id" doc:"The order's id, such as A-1042."`
}

// ListIn is the input of list_orders: it travels as the query string.
type ListIn struct {
	Status string `json:"status,omitzero" doc:"Only orders with this status." enum:"open,shipped,cancelled"`
	Limit  int    `json:"limit,omitzero" doc:"At most this many ids." minimum:"1" maximum:"100" default:"20"`
}

// CreateIn is the input of create_order: the body of POST /api/orders.
type CreateIn struct {
	ID       string `json:"id" doc:"The new order's id: a letter, a dash and digits, such as A-1042."`
	Customer string `json:"customer" doc:"Who orders." minLength:"1"`
	Lines    []Line `json:"lines" doc:"What is ordered." minItems:"1"`
}

// PeriodIn names a month of the ledger.
type PeriodIn struct {
	Period      string `json:"period" doc:"The month to close." pattern:"^[0-9]{4}-[0-9]{2}$"`
	AmountCents int64  `json:"amount_cents,omitzero" doc:"The accruals to post, in cents."`
}

// NewMCP returns the MCP server of the service: tools bound to the API's
// routes, served through api (the routes behind their middleware), whose
// routes mux holds. opts adds to the binding's options (fixed headers for
// stdio); it may be nil.
func NewMCP(api http.Handler, mux *http.ServeMux, logger *slog.Logger, opts *route.Options) *ferry.Server {
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{
		Logger:       logger,
		Instructions: "Look an order up before changing it. Money is in cents.",
	})
	o := route.Options{}
	if opts != nil {
		o = *opts
	}
	o.Prefix, o.Router = "/api", route.ServeMux(mux) // api is mux behind Auth
	// Auth reads X-API-Key as well as a bearer token: forward it, so that
	// a client configured with either header reaches the API with its key.
	o.Forward = append(o.Forward, "X-API-Key")
	b := route.New(srv, api, &o)
	route.AddToolOut[OrderIn, Order](b, ferry.Tool{Name: "get_order", Title: "Get an order", Description: "Fetches one order by id, with its lines.",
		ClosedWorld: true}, "GET /orders/{id}")
	route.AddToolOut[ListIn, OrderList](b, ferry.Tool{Name: "list_orders", Title: "List orders", Description: "Lists the ids of orders, optionally of one status.",
		ClosedWorld: true}, "GET /orders")
	route.AddToolOut[CreateIn, Order](b, ferry.Tool{Name: "create_order", Title: "Create an order", Description: "Creates an open order.",
		ClosedWorld: true, Additive: true}, "POST /orders")
	route.AddToolOut[OrderIn, Order](b, ferry.Tool{Name: "cancel_order", Title: "Cancel an order", Description: "Cancels an order that has not shipped.",
		ClosedWorld: true, Idempotent: true}, "POST /orders/{id}/cancel")
	route.AddTool[OrderIn](b, ferry.Tool{Name: "get_invoice", Title: "Get an invoice", Description: "Fetches an order's invoice.",
		ClosedWorld: true}, "GET /orders/{id}/invoice")
	route.AddJob(b, ferry.Tool{Name: "month_end", Title: "Close a month", Description: "Closes a month: posts its accruals, then locks the period.",
		ClosedWorld: true}, monthEnd)
	return srv
}

// monthEnd posts the period's accruals, then locks it, stopping at the
// first refusal, which the model reads.
func monthEnd(ctx context.Context, in PeriodIn) (*ferry.ToolResult, error) {
	a, err := route.Ask(ctx, "POST /ledger/accruals", Accrual(in))
	if err != nil {
		return nil, err
	}
	if err := a.Err(); err != nil {
		return nil, err // conflict: Period 2026-11 is locked.
	}
	a, err = route.Ask(ctx, "POST /ledger/periods/"+url.PathEscape(in.Period)+"/lock", nil)
	if err != nil {
		return nil, err
	}
	if err := a.Err(); err != nil {
		return nil, err
	}
	return ferry.NewResult(ferry.Text("Closed " + in.Period + ": the accruals are posted and the period is locked.")), nil
}
