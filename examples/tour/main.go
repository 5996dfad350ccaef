// Command tour is the README's five-minute tour as one program: a typed
// tool, tools bound to the service's own REST routes, entity tools over a
// SQLite table, and API keys in front of it all. The README quotes its
// code between the "readme:" markers, and readme_test.go checks that
// every Go block of the README is quoted from here, so the README's code
// always compiles.
//
// Run it in this directory (a module of its own):
//
//	TOUR_API_KEY=k-$(openssl rand -hex 16) go run .
//
// It serves MCP at http://127.0.0.1:8080/mcp and the REST API at /api/,
// both behind the key (Authorization: Bearer KEY).
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/route"
	_ "modernc.org/sqlite"
)

// readme:typed
type SearchIn struct {
	Query string `json:"query" doc:"Text to search for." minLength:"1"`
	Limit int    `json:"limit,omitzero" doc:"At most this many." minimum:"1" maximum:"50"`
}

type Order struct {
	ID       string `json:"id"`
	Customer string `json:"customer"`
	Status   string `json:"status"`
}

func addSearch(srv *ferry.Server, orders *Orders) {
	ferry.AddTool(srv, ferry.Tool{Name: "search_orders", Description: "Searches orders by customer name.", ReadOnly: true},
		func(ctx context.Context, in SearchIn) ([]Order, error) {
			found := orders.Search(in.Query, in.Limit)
			if len(found) == 0 {
				return nil, ferry.NotFound("No order matches; try part of the customer's name.")
			}
			return found, nil
		})
}

// readme:end

// readme:route
type OrderIn struct {
	ID string `json:"id" doc:"The order's id, such as A-1."`
}

// bindRoutes binds tools to the API's own routes: a call goes through the
// API's middleware and handlers as any other request does.
func bindRoutes(srv *ferry.Server, api http.Handler) {
	b := route.New(srv, api, &route.Options{Prefix: "/api"})
	route.AddTool[OrderIn](b, ferry.Tool{Name: "get_order", Description: "Fetches one order by its id.", ReadOnly: true},
		"GET /orders/{id}")
	route.AddTool[OrderIn](b, ferry.Tool{Name: "cancel_order", Description: "Cancels an order that has not shipped yet.", Idempotent: true}, "POST /orders/{id}/cancel")
}

// readme:end

// readme:entity
type Product struct {
	ID    int64   `json:"id" entity:"key"`
	SKU   string  `json:"sku" entity:"natural" maxLength:"20"`
	Name  string  `json:"name" entity:"filter,sort" minLength:"1"`
	Price float64 `json:"price" entity:"filter,sort" minimum:"0"`
}

// addProducts serves the products table as get_product, list_products
// and, unless readOnly, create_product, update_product and delete_product.
func addProducts(srv *ferry.Server, db *sql.DB, readOnly bool) error {
	set, err := entity.NewSet(srv, db, &entity.SetOptions{ReadOnly: readOnly})
	if err != nil {
		return err
	}
	_, err = entity.Add[Product](set, nil)
	return err
}

// readme:end

// readme:auth
// protect puts API keys in front of h. The key comes from the
// environment: a command line is visible to every user of the machine.
func protect(h http.Handler) (http.Handler, error) {
	keys, err := auth.NewStaticKeys(map[string]*ferry.Principal{
		os.Getenv("TOUR_API_KEY"): {Subject: "agent"},
	})
	if err != nil {
		return nil, err // an empty key is refused
	}
	mw := auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{auth.APIKeys(keys.Lookup, nil)}})
	return mw(h), nil
}

// readme:end

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, "127.0.0.1:8080", "file:tour.db?_pragma=busy_timeout(5000)", logger); err != nil {
		logger.Error("tour", "err", err)
		os.Exit(1)
	}
}

// readme:serve
func newHandler(db *sql.DB, logger *slog.Logger) (http.Handler, *ferry.HTTPHandler, error) {
	orders := NewOrders()
	srv := ferry.NewServer("tour", "1.0.0", &ferry.ServerOptions{Logger: logger})
	addSearch(srv, orders)
	bindRoutes(srv, orders.API())
	if err := addProducts(srv, db, false); err != nil {
		return nil, nil, err
	}
	mcp := ferry.NewHTTPHandler(srv, nil) // panics if a bound route does not exist
	mux := http.NewServeMux()
	mux.Handle("/api/", orders.API())
	mux.Handle("/mcp", mcp)
	h, err := protect(mux)
	return h, mcp, err // serve h; mcp is for a graceful shutdown
}

// readme:end

func run(ctx context.Context, addr, dsn string, logger *slog.Logger) error {
	db, err := openDB(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	h, mcp, err := newHandler(db, logger)
	if err != nil {
		return err
	}
	hs := ferry.NewHTTPServer(addr, h) // the timeouts a zero http.Server lacks
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	logger.Info("serving", "mcp", "http://"+addr+"/mcp", "api", "http://"+addr+"/api/")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		// Running calls get 10s to finish; MCP streams end first, then hs.
		stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return ferry.ShutdownHTTPServer(stop, hs, mcp)
	}
}

// openDB opens the SQLite database and creates the products table if it
// is missing.
func openDB(ctx context.Context, dsn string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	const ddl = `CREATE TABLE IF NOT EXISTS products (
		id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL, price REAL NOT NULL)`
	if _, err := db.ExecContext(ctx, ddl); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Orders is the service's order book, in memory.
type Orders struct {
	mu     sync.Mutex
	orders []Order
}

// NewOrders returns an order book with three orders.
func NewOrders() *Orders {
	return &Orders{orders: []Order{
		{ID: "A-1", Customer: "Ada Lovelace", Status: "open"},
		{ID: "A-2", Customer: "Alan Turing", Status: "shipped"},
		{ID: "A-3", Customer: "Grace Hopper", Status: "open"},
	}}
}

// Search returns up to limit orders whose customer contains q, ignoring
// case; a limit of 0 means 10.
func (o *Orders) Search(q string, limit int) []Order {
	if limit == 0 {
		limit = 10
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	var found []Order
	for _, ord := range o.orders {
		if len(found) < limit && strings.Contains(strings.ToLower(ord.Customer), strings.ToLower(q)) {
			found = append(found, ord)
		}
	}
	return found
}

// API returns the REST API: GET /api/orders/{id} and POST
// /api/orders/{id}/cancel.
func (o *Orders) API() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		ord, err := o.update(r.PathValue("id"), nil)
		reply(w, ord, err)
	})
	mux.HandleFunc("POST /api/orders/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		ord, err := o.update(r.PathValue("id"), func(ord *Order) error {
			if ord.Status == "shipped" {
				return errShipped
			}
			ord.Status = "cancelled"
			return nil
		})
		reply(w, ord, err)
	})
	return mux
}

var (
	errNoOrder = errors.New("no such order")
	errShipped = errors.New("the order has shipped")
)

func (o *Orders) update(id string, f func(*Order) error) (Order, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.orders {
		if o.orders[i].ID == id {
			if f != nil {
				if err := f(&o.orders[i]); err != nil {
					return Order{}, err
				}
			}
			return o.orders[i], nil
		}
	}
	return Order{}, errNoOrder
}

// reply writes ord as JSON, or err as a problem document (RFC 9457) whose
// detail the route package hands to the model.
func reply(w http.ResponseWriter, ord Order, err error) {
	status := http.StatusOK
	var body any = ord
	switch {
	case errors.Is(err, errNoOrder):
		status, body = http.StatusNotFound, map[string]any{"status": 404, "detail": "No such order."}
	case errors.Is(err, errShipped):
		status, body = http.StatusConflict, map[string]any{"status": 409, "detail": "The order has shipped and can no longer be cancelled."}
	}
	if err != nil {
		w.Header().Set("Content-Type", "application/problem+json")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
