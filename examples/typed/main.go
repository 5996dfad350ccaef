// Command typed serves typed tools: the input schema and its validation
// come from the SearchIn struct's tags, the output schema from the Order
// struct, and refusals reach the model as sentences it can act on.
//
// Tool handlers run concurrently, on every transport, so the orders they
// share are guarded by a mutex. Run it over stdio, or over Streamable HTTP
// on loopback (put authentication in front of any other address):
//
//	go run ./examples/typed
//	go run ./examples/typed -http 127.0.0.1:8080
package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ferry-mcp/ferry"
)

// SearchIn is the input of search_orders.
type SearchIn struct {
	Query string `json:"query" doc:"Text to look for in the customer's name." minLength:"1"`
	Limit int    `json:"limit,omitzero" doc:"At most this many orders." minimum:"1" maximum:"50" default:"10"`
}

// CancelIn is the input of cancel_order.
type CancelIn struct {
	ID string `json:"id" doc:"The order's id, as search_orders returns it."`
}

// Order is an order as tools return it.
type Order struct {
	ID       string `json:"id" doc:"The order's id."`
	Customer string `json:"customer"`
	Status   string `json:"status" enum:"open,shipped,cancelled"`
}

// Orders is the result of search_orders. Orders is never nil: omitzero
// keeps a nil slice from being written as null, so the output schema says
// "array" (not ["array", "null"]), and required says it is always there.
type Orders struct {
	Orders []Order `json:"orders,omitzero" required:"true"`
}

// Shop holds the orders. Its methods are safe for concurrent use.
type Shop struct {
	mu     sync.Mutex // guards orders: handlers run concurrently
	orders []Order
}

// Search returns the orders whose customer's name contains in.Query.
// in.Limit is 10 when the model leaves it out: the server fills in the
// default tag before the handler runs.
func (s *Shop) Search(ctx context.Context, in SearchIn) (Orders, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := Orders{Orders: []Order{}}
	for _, o := range s.orders {
		if strings.Contains(strings.ToLower(o.Customer), strings.ToLower(in.Query)) && len(out.Orders) < in.Limit {
			out.Orders = append(out.Orders, o)
		}
	}
	return out, nil
}

// Cancel cancels an order that has not shipped.
func (s *Shop) Cancel(ctx context.Context, in CancelIn) (Order, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, o := range s.orders {
		if o.ID != in.ID {
			continue
		}
		if o.Status == "shipped" {
			return Order{}, ferry.Conflict("order " + o.ID + " has shipped; it can no longer be cancelled")
		}
		s.orders[i].Status = "cancelled"
		return s.orders[i], nil
	}
	return Order{}, ferry.NotFound("no order " + in.ID + "; use search_orders to find its id")
}

// newServer returns a server with the tools of shop.
func newServer(shop *Shop, logger *slog.Logger) *ferry.Server {
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Logger: logger})
	ferry.AddTool(srv, ferry.Tool{Name: "search_orders", Title: "Search orders", Description: "Searches orders by customer name.", ReadOnly: true, ClosedWorld: true}, shop.Search)
	ferry.AddTool(srv, ferry.Tool{Name: "cancel_order", Title: "Cancel an order", Description: "Cancels an order that has not shipped.", Idempotent: true, ClosedWorld: true}, shop.Cancel)
	return srv
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at `ADDR`/mcp (e.g. 127.0.0.1:8080) instead of stdio")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv := newServer(&Shop{orders: []Order{
		{ID: "A-1", Customer: "Ada Lovelace", Status: "open"},
		{ID: "A-2", Customer: "Alan Turing", Status: "shipped"},
	}}, logger)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *addr == "" {
		err = srv.Run(ctx, &ferry.StdioTransport{})
	} else {
		err = serveHTTP(ctx, *addr, srv, logger)
	}
	if err != nil {
		logger.Error("serve", "err", err)
		os.Exit(1)
	}
}

// serveHTTP serves srv at addr/mcp until ctx is done.
func serveHTTP(ctx context.Context, addr string, srv *ferry.Server, logger *slog.Logger) error {
	h := ferry.NewHTTPHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := ferry.NewHTTPServer(ln.Addr().String(), mux)
	stopped := make(chan error, 1)
	go func() {
		<-ctx.Done()
		// The calls in flight get 10s to finish, then are cancelled.
		drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		stopped <- ferry.ShutdownHTTPServer(drain, hs, h)
	}()
	logger.Info("serving", "url", "http://"+ln.Addr().String()+"/mcp")
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return <-stopped
}
