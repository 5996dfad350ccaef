package shop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ferry-mcp/ferry"
)

// policies is the text of shop://policies.
const policies = `# Shop policies

- Orders ship within two working days. A placed order can be cancelled until it ships;
  cancelling puts its units back in stock. A shipped order cannot be cancelled: arrange
  a return with the customer instead.
- An order is placed whole or not at all: if any line is short of stock, nothing is ordered.
- At most 50 units of a product per order, and at most 20 lines.
- Prices are in euro cents and include VAT.
`

// OrderVars are the variables of shop://orders/{id}.
type OrderVars struct {
	ID int64 `json:"id"`
}

// addResources registers shop://policies and the template
// shop://orders/{id}.
func addResources(srv *ferry.Server, store *Store) {
	srv.AddResource(ferry.Resource{URI: "shop://policies", Name: "policies", Title: "Shop policies",
		Description: "Shipping, cancellation and order limits, as the shop applies them.", MIMEType: "text/markdown"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "text/markdown", Text: policies}}, nil
		})
	ferry.AddResourceTemplate(srv, ferry.ResourceTemplate{URITemplate: "shop://orders/{id}", Name: "order", Title: "An order",
		Description: "One order with its lines, as get_order answers it; the id completes from the orders.", MIMEType: "application/json"},
		func(ctx context.Context, uri string, v OrderVars) ([]ferry.ResourceContents, error) {
			o, err := store.Order(ctx, v.ID)
			if errors.Is(err, errNotFound) {
				return nil, fmt.Errorf("%w: no order %d", ferry.ErrResourceNotFound, v.ID)
			} else if err != nil {
				return nil, err
			}
			data, err := json.Marshal(o)
			if err != nil {
				return nil, err
			}
			return []ferry.ResourceContents{{URI: orderURI(o.ID), MIMEType: "application/json", Text: string(data)}}, nil
		})
}
