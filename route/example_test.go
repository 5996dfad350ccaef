package route_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/route"
)

// orders is a small REST service: its handlers, behind its middleware.
func orders() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != "A-1" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"title":"Not Found","detail":"No such order."}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"A-1","status":"open"}`)
	})
	mux.HandleFunc("POST /api/orders/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

// callTool calls a tool through the MCP endpoint h with Ferry's client,
// in memory, and prints the text of its result's blocks, or the error.
func callTool(h http.Handler, name, args string) {
	ctx := context.Background()
	c, err := client.DialHandler(ctx, h, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, err := c.CallTool(ctx, name, json.RawMessage(args))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Content {
		fmt.Println(c.Text)
	}
}

func Example() {
	type OrderIn struct {
		ID string `json:"id" doc:"The order's id."`
	}
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	api := route.New(srv, orders(), &route.Options{Prefix: "/api"})
	route.AddTool[OrderIn](api, ferry.Tool{Name: "get_order", Description: "Fetches one order by id."}, "GET /orders/{id}")
	route.AddTool[OrderIn](api, ferry.Tool{Name: "cancel_order", Description: "Cancels an order."}, "POST /orders/{id}/cancel")

	mcp := ferry.NewHTTPHandler(srv, nil) // runs the start-up check: every route exists
	callTool(mcp, "get_order", `{"id":"A-1"}`)
	callTool(mcp, "get_order", `{"id":"B-2"}`)
	callTool(mcp, "cancel_order", `{"id":"A-1"}`)
	info, _ := srv.Catalog().Lookup("cancel_order")
	fmt.Println("cancel_order writes:", info.Writes())
	// Output:
	// {"id":"A-1","status":"open"}
	// not-found: No such order.
	// Done: the request succeeded with no content.
	// cancel_order writes: true
}

func ExampleAddJob() {
	type PeriodIn struct {
		Period string `json:"period" doc:"The month, yyyy-MM."`
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /ledger/accruals", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
	})
	mux.HandleFunc("POST /ledger/periods/{period}/lock", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusConflict)
		_, _ = fmt.Fprintf(w, `{"detail":"Period %s is locked."}`, r.PathValue("period"))
	})
	srv := ferry.NewServer("ledger", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	ledger := route.New(srv, mux, nil)
	route.AddJob(ledger, ferry.Tool{Name: "month_end", Description: "Closes the month: posts accruals, then locks the period."},
		func(ctx context.Context, in PeriodIn) (*ferry.ToolResult, error) {
			a, err := route.Ask(ctx, "POST /ledger/accruals", map[string]string{"period": in.Period})
			if err != nil {
				return nil, err
			}
			if err := a.Err(); err != nil {
				return nil, err // the model reads the refusal
			}
			// The period is the model's text: escape it, as Ask reads the
			// route as written.
			a, err = route.Ask(ctx, "POST /ledger/periods/"+url.PathEscape(in.Period)+"/lock", nil)
			if err != nil {
				return nil, err
			}
			return a.Result()
		})
	callTool(ferry.NewHTTPHandler(srv, nil), "month_end", `{"period":"2026-11"}`)
	// Output:
	// conflict: Period 2026-11 is locked.
}

func ExampleServeMux() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /orders", func(w http.ResponseWriter, r *http.Request) {})
	logged := func(next http.Handler) http.Handler { // the service's middleware
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(w, r) })
	}
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	b := route.New(srv, logged(mux), &route.Options{Router: route.ServeMux(mux)})
	b.AddTool(ferry.Tool{Name: "list_orders", Description: "Lists orders."}, "GET /orders")
	b.AddTool(ferry.Tool{Name: "refund", Description: "Refunds an order."}, "POST /refunds")
	fmt.Println(srv.Check())
	// Output:
	// route: tool "refund", route "POST /refunds": the mux serves no such route
}

func ExampleFromAgent() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /whoami", func(w http.ResponseWriter, r *http.Request) {
		if tool, ok := route.FromAgent(r); ok {
			_, _ = fmt.Fprintf(w, "an agent, calling %s", tool)
			return
		}
		_, _ = io.WriteString(w, "someone else")
	})
	srv := ferry.NewServer("who", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	route.New(srv, mux, nil).AddTool(ferry.Tool{Name: "whoami", Description: "Says who calls."}, "GET /whoami")
	callTool(ferry.NewHTTPHandler(srv, nil), "whoami", `{}`)
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("GET", "/whoami", nil))
	fmt.Println(w.Body)
	// Output:
	// an agent, calling whoami
	// someone else
}
