package shop

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
)

// RestockIn is the input of restock_report.
type RestockIn struct {
	SKUs []string `json:"skus" doc:"The products to check, by SKU, such as TEA-003; list_products finds them." minItems:"1" maxItems:"25"`
	// Target is the stock to bring a low product up to, in reorder levels.
	Target int64 `json:"target,omitzero" doc:"Bring each low product up to this many times its reorder level." minimum:"1" maximum:"10" default:"2"`
}

// RestockLine is one low product of a restock report.
type RestockLine struct {
	SKU          string `json:"sku" doc:"The product's SKU."`
	Name         string `json:"name" doc:"The product's name."`
	Stock        int64  `json:"stock" doc:"Units in stock now."`
	ReorderLevel int64  `json:"reorder_level" doc:"Its reorder level."`
	Reorder      int64  `json:"reorder" doc:"Units to reorder."`
}

// RestockReport is the result of restock_report. Its lists are never
// nil, so that a client always reads arrays: omitzero keeps a nil slice
// from being written as null, which makes the output schema say "array"
// rather than ["array", "null"], and required says they are always there.
type RestockReport struct {
	Low     []RestockLine `json:"low,omitzero" required:"true" doc:"The products below their reorder level, emptiest first."`
	OK      []string      `json:"ok,omitzero" required:"true" doc:"The SKUs with enough stock."`
	Unknown []string      `json:"unknown,omitzero" required:"true" doc:"The SKUs no product has."`
}

// restockReport asks the REST API for each product, through the same key
// middleware as every call, and compiles the report. A SKU the API does
// not know is listed as unknown; any other refusal stops the report. A
// SKU that is not one is refused before anything is asked.
func restockReport(ctx context.Context, in RestockIn) (RestockReport, error) {
	if err := checkSKUs(in.SKUs); err != nil {
		return RestockReport{}, err
	}
	target := cmp.Or(in.Target, 2)
	r := RestockReport{Low: []RestockLine{}, OK: []string{}, Unknown: []string{}}
	seen := map[string]bool{}
	for _, sku := range in.SKUs {
		if seen[sku] {
			continue
		}
		seen[sku] = true
		a, err := route.Ask(ctx, "GET /products/"+url.PathEscape(sku), nil)
		if err != nil {
			return RestockReport{}, err
		}
		if a.Status == http.StatusNotFound {
			r.Unknown = append(r.Unknown, sku)
			continue
		}
		if err := a.Err(); err != nil {
			return RestockReport{}, err
		}
		var p Product
		if err := a.Decode(&p); err != nil {
			return RestockReport{}, err
		}
		if p.Stock >= p.ReorderLevel {
			r.OK = append(r.OK, p.SKU)
			continue
		}
		r.Low = append(r.Low, RestockLine{SKU: p.SKU, Name: p.Name, Stock: p.Stock, ReorderLevel: p.ReorderLevel,
			Reorder: target*p.ReorderLevel - p.Stock})
	}
	slices.SortStableFunc(r.Low, func(a, b RestockLine) int { return cmp.Compare(a.Stock, b.Stock) })
	return r, nil
}

// checkSKUs refuses, naming each, the SKUs that are not SKUs: they name
// no product, and a path in one must never become a request's path.
func checkSKUs(skus []string) error {
	var bad []string
	for i, sku := range skus {
		if !skuPattern.MatchString(sku) {
			bad = append(bad, fmt.Sprintf("skus[%d] %q", i, sku))
		}
	}
	switch len(bad) {
	case 0:
		return nil
	case 1:
		return ferry.Invalid(bad[0] + " is not a SKU such as TEA-003; list_products finds them")
	}
	return ferry.Invalid(strings.Join(bad, ", ") + " are not SKUs such as TEA-003; list_products finds them")
}
