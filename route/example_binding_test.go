package route_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
	"github.com/ferry-mcp/ferry/schema"
)

// Fields tagged in:"header=..." and in:"query" leave the body for a header
// and the query string.
func ExampleAddTool() {
	type RefundIn struct {
		ID     string `json:"id" doc:"The order to refund."`
		Amount int    `json:"amount_cents" doc:"How much, in cents." minimum:"1"`
		Notify bool   `json:"notify,omitzero" doc:"Tell the customer." in:"query"`
		Key    string `json:"idempotency_key" doc:"The same key for a retry." in:"header=Idempotency-Key"`
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /orders/{id}/refunds", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_, _ = fmt.Fprintf(w, "%s %s?%s key=%s body=%s", r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Idempotency-Key"), body)
	})
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	route.AddTool[RefundIn](route.New(srv, mux, nil), ferry.Tool{Name: "refund", Description: "Refunds part of an order."},
		"POST /orders/{id}/refunds")
	callTool(ferry.NewHTTPHandler(srv, nil), "refund", `{"id":"A-1","amount_cents":250,"notify":true,"idempotency_key":"r-77"}`)
	// Output:
	// POST /orders/A-1/refunds?notify=true key=r-77 body={"amount_cents":250}
}

// An output type gives the tool an output schema; the route's JSON object
// answer is the structured content.
func ExampleAddToolOut() {
	type OrderIn struct {
		ID string `json:"id" doc:"The order."`
	}
	type Order struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(Order{ID: r.PathValue("id"), Status: "open"})
	})
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	route.AddToolOut[OrderIn, Order](route.New(srv, mux, nil), ferry.Tool{Name: "get_order", Description: "Fetches an order."},
		"GET /orders/{id}")
	callTool(ferry.NewHTTPHandler(srv, nil), "get_order", `{"id":"A-1"}`)
	info, _ := srv.Catalog().Lookup("get_order")
	fmt.Println("read-only:", info.ReadOnly)
	// Output:
	// {"id":"A-1","status":"open"}
	//
	// read-only: true
}

// A tool with a schema built at run time; its arguments are the body.
func ExampleBinding_AddTool() {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /notes", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusCreated)
		_, _ = fmt.Fprintf(w, "stored %s", body)
	})
	srv := ferry.NewServer("notes", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	b := route.New(srv, mux, nil)
	b.AddTool(ferry.Tool{Name: "add_note", Description: "Adds a note.",
		InputSchema: schema.Object(schema.Required("text", schema.Text("The note.")))}, "POST /notes")
	callTool(ferry.NewHTTPHandler(srv, nil), "add_note", `{"text":"call Ada"}`)
	// Output:
	// stored {"text":"call Ada"}
}

// A typed tool asks the binding directly, with the caller's headers.
func ExampleBinding_Ask() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stock/{sku}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("sku") != "PEN" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"detail":"No such product."}`)
			return
		}
		_, _ = io.WriteString(w, `{"count":12}`)
	})
	srv := ferry.NewServer("stock", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	b := route.New(srv, mux, nil)
	type StockIn struct {
		SKUs []string `json:"skus" doc:"The products."`
	}
	ferry.AddTool(srv, ferry.Tool{Name: "stock", Description: "Counts the stock of products.", ReadOnly: true},
		func(ctx context.Context, in StockIn) (string, error) {
			out := ""
			for _, sku := range in.SKUs {
				a, err := b.Ask(ctx, "GET /stock/"+url.PathEscape(sku), nil) // a model's text: escape it

				if err != nil {
					return "", err
				}
				if a.IsError() {
					out += fmt.Sprintf("%s: %d %s; ", sku, a.Status, a.Problem.Detail)
					continue
				}
				var s struct{ Count int }
				if err := a.Decode(&s); err != nil {
					return "", err
				}
				out += fmt.Sprintf("%s: %d; ", sku, s.Count)
			}
			return out, nil
		})
	callTool(ferry.NewHTTPHandler(srv, nil), "stock", `{"skus":["PEN","INK"]}`)
	// Output:
	// PEN: 12; INK: 404 No such product.;
}
