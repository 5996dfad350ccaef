package main

import (
	"context"
	"errors"

	"github.com/ferry-mcp/ferry"
)

// LineItem is one line of an order.
type LineItem struct {
	SKU      string `json:"sku" doc:"The product's code." maxLength:"20"`
	Quantity int    `json:"quantity" doc:"How many." minimum:"1"`
}

// OrderIn is the input of place_order: nested, with constraints.
type OrderIn struct {
	Customer string     `json:"customer" doc:"Who orders." minLength:"1"`
	Email    string     `json:"email" doc:"Where the confirmation goes." format:"email"`
	Items    []LineItem `json:"items" doc:"What is ordered." minItems:"1"`
	Express  bool       `json:"express,omitzero" doc:"Ship by express."`
}

// OrderOut is the confirmation of place_order.
type OrderOut struct {
	ID      string `json:"id"`
	Lines   int    `json:"lines"`
	Units   int    `json:"units"`
	Express bool   `json:"express"`
}

// addTypedTools adds a typed tool for end-to-end tests of validation,
// coercion, refusals and failures: customer "ghost" is refused, "panic"
// panics and "broken" fails with an unexpected error.
func addTypedTools(srv *ferry.Server) {
	ferry.AddTool(srv, ferry.Tool{Name: "place_order", Description: "Places an order for a customer.",
		Idempotent: false, Additive: true, ClosedWorld: true},
		func(ctx context.Context, in OrderIn) (OrderOut, error) {
			switch in.Customer {
			case "ghost":
				return OrderOut{}, ferry.NotFound("No such customer.")
			case "panic":
				panic("the order book is corrupt")
			case "broken":
				return OrderOut{}, errors.New("connection to the warehouse refused")
			}
			out := OrderOut{ID: "o-1", Lines: len(in.Items), Express: in.Express}
			for _, it := range in.Items {
				out.Units += it.Quantity
			}
			return out, nil
		})
}
