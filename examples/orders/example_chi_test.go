package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/route"
	"github.com/go-chi/chi/v5"
)

// chiRouter adapts a chi router to route.Matcher, for the start-up check:
// chi, not the route package, is this module's dependency.
type chiRouter struct{ chi.Routes }

// Match implements route.Matcher.
func (r chiRouter) Match(method, path string) bool {
	return r.Routes.Match(chi.NewRouteContext(), method, path)
}

// A chi router serves route-bound tools as a ServeMux does; the adapter
// lets the start-up check see its routes.
func Example_chi() {
	r := chi.NewRouter()
	r.Get("/api/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "order "+chi.URLParam(r, "id"))
	})
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	b := route.New(srv, r, &route.Options{Prefix: "/api", Router: chiRouter{r}})
	route.AddTool[OrderIn](b, ferry.Tool{Name: "get_order", Description: "Fetches an order."}, "GET /orders/{id}")
	fmt.Println("check:", srv.Check())
	fmt.Println(callText(ferry.NewHTTPHandler(srv, nil), "get_order", `{"id":"A-1"}`))

	route.AddTool[OrderIn](b, ferry.Tool{Name: "cancel_order", Description: "Cancels an order."}, "POST /orders/{id}/cancel")
	fmt.Println("check:", srv.Check())
	// Output:
	// check: <nil>
	// order A-1
	// check: route: tool "cancel_order", route "POST /api/orders/{id}/cancel": the router serves no such route
}

// callText calls a tool through the MCP endpoint h, with Ferry's client
// in memory, and returns its result's text, or the error.
func callText(h http.Handler, name, args string) string {
	ctx := context.Background()
	c, err := client.DialHandler(ctx, h, nil)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	res, err := c.CallTool(ctx, name, json.RawMessage(args))
	if err != nil {
		return err.Error()
	}
	return res.Text()
}
