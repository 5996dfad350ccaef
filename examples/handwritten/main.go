// Command handwritten serves a tool whose input schema is built by hand
// and whose arguments are read with the strict readers of package args: a
// tool shaped like a job rather than like one Go function.
//
//	go run ./examples/handwritten
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/args"
	"github.com/ferry-mcp/ferry/schema"
)

func main() {
	// The server checks every call against this schema before the handler
	// runs, as it does for typed tools.
	in := schema.Object(
		schema.Required("from", schema.Date("First day of the report.")),
		schema.Required("to", schema.Date("Last day of the report.")),
		schema.Optional("currency", schema.Choice("Currency of the totals.", "EUR", "GBP", "USD")),
		schema.Optional("minimum", schema.Number("Leave out sales below this amount.")),
	)
	srv := ferry.NewServer("sales", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	srv.AddTool(ferry.Tool{Name: "sales_report", Description: "Totals the sales between two days.",
		ReadOnly: true, OpenWorld: ferry.HintNo, InputSchema: in},
		func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			a, err := args.Parse(req.Arguments)
			if err != nil {
				return ferry.ErrorResult(err.Error()), nil
			}
			from, err1 := args.Date(a, "from")
			to, err2 := args.Date(a, "to")
			currency, err3 := args.Text(a, "currency", "EUR")
			minimum, _, err4 := args.OptionalNumber(a, "minimum")
			if err := firstError(err1, err2, err3, err4); err != nil {
				return ferry.ErrorResult(err.Error()), nil
			}
			if to.Before(from) {
				return nil, ferry.Invalid("to is before from: swap them")
			}
			days := int(to.Sub(from).Hours()/24) + 1
			return ferry.NewResult(ferry.Text(fmt.Sprintf("%d days of sales over %.2f %s: 0 sales.", days, minimum, currency))), nil
		})
	if err := srv.Run(context.Background(), &ferry.StdioTransport{}); err != nil {
		slog.Error("serve", "err", err)
		os.Exit(1)
	}
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
