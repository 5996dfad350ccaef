// Command handwritten serves a tool whose input schema is built by hand
// and whose arguments are read with the strict readers of package args: a
// tool shaped like a job rather than like one Go function.
//
//	go run ./examples/handwritten
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/args"
	"github.com/ferry-mcp/ferry/schema"
)

func main() {
	srv := newServer(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if err := srv.Run(context.Background(), &ferry.StdioTransport{}); err != nil {
		slog.Error("serve", "err", err)
		os.Exit(1)
	}
}

// newServer returns the server with its one tool.
func newServer(logger *slog.Logger) *ferry.Server {
	// The default lives in the schema, so tools/list publishes it to the
	// model and the server fills it in before the handler runs.
	currency := schema.Choice("Currency of the totals.", "EUR", "GBP", "USD")
	currency.Default = json.RawMessage(`"EUR"`)
	// The server checks every call against this schema before the handler
	// runs, as it does for typed tools.
	in := schema.Object(
		schema.Required("from", schema.Date("First day of the report.")),
		schema.Required("to", schema.Date("Last day of the report.")),
		schema.Optional("currency", currency),
		schema.Optional("minimum", schema.Number("Leave out sales below this amount.")),
	)
	srv := ferry.NewServer("sales", "1.0.0", &ferry.ServerOptions{Logger: logger})
	srv.AddTool(ferry.Tool{Name: "sales_report", Title: "Sales report", Description: "Totals the sales between two days.",
		ReadOnly: true, ClosedWorld: true, InputSchema: in},
		func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			a, err := args.Parse(req.Arguments)
			if err != nil {
				return ferry.NewErrorResult(err.Error()), nil
			}
			from, err1 := args.Date(a, "from")
			to, err2 := args.Date(a, "to")
			currency, err3 := args.RequiredText(a, "currency") // filled in from the schema's default
			minimum, _, err4 := args.OptionalNumber(a, "minimum")
			if err := errors.Join(err1, err2, err3, err4); err != nil {
				return ferry.NewErrorResult(err.Error()), nil // one violation a line
			}
			if to.Before(from) {
				return nil, ferry.Invalid("to is before from: swap them")
			}
			days := int(to.Sub(from).Hours()/24) + 1
			return ferry.NewResult(ferry.Text(fmt.Sprintf("%d days of sales over %.2f %s: 0 sales.", days, minimum, currency))), nil
		})
	return srv
}
