// Command resources serves resources over Streamable HTTP at /mcp:
//
//   - docs://guide, a text resource with annotations, and docs://logo.png,
//     a binary one;
//   - the template orders://{region}/{id}, whose variables fill a struct:
//     region completes to the values of its enum tag, and id is an integer;
//   - the JSON Schemas of the tools, under shop://schemas;
//   - the tool ship_order, which changes an order and tells the clients
//     that subscribed to it that it changed.
//
// Sessions are stateful, so that legacy clients can subscribe to a resource
// (resources/subscribe) and hear of changes on their GET stream; modern
// clients use subscriptions/listen. Run it with:
//
//	go run ./examples/resources -http 127.0.0.1:8080
//
// and point a client at http://127.0.0.1:8080/mcp. Interrupt it to stop it.
// It binds loopback by default; put authentication in front of it before
// serving any other address. Tool and resource handlers run concurrently,
// so the store they share is guarded by a mutex.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/ferry-mcp/ferry"
)

// guide is the text of docs://guide.
const guide = `# Orders

Read an order at orders://{region}/{id}, such as orders://eu/1.
Ship it with the ship_order tool; subscribers of its URI hear of the change.
`

// logo is a 1x1 transparent PNG, the binary resource docs://logo.png.
var logo = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
	0x42, 0x60, 0x82,
}

// OrderVars are the variables of orders://{region}/{id}.
type OrderVars struct {
	Region string `json:"region" enum:"eu,us,apac"`
	ID     int    `json:"id"`
}

// Order is an order as orders://{region}/{id} serves it.
type Order struct {
	Region   string `json:"region"`
	ID       int    `json:"id"`
	Customer string `json:"customer"`
	Status   string `json:"status" enum:"open,shipped"`
}

// URI returns the order's resource URI.
func (o Order) URI() string { return fmt.Sprintf("orders://%s/%d", o.Region, o.ID) }

// store holds the orders. It is safe for concurrent use.
type store struct {
	mu     sync.Mutex // guards orders
	orders map[OrderVars]Order
}

func newStore() *store {
	s := &store{orders: map[OrderVars]Order{}}
	for _, o := range []Order{
		{Region: "eu", ID: 1, Customer: "Ada Lovelace", Status: "open"},
		{Region: "eu", ID: 2, Customer: "Alan Turing", Status: "shipped"},
		{Region: "us", ID: 1, Customer: "Grace Hopper", Status: "open"},
	} {
		s.orders[OrderVars{o.Region, o.ID}] = o
	}
	return s
}

func (s *store) order(v OrderVars) (Order, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[v]
	return o, ok
}

// ship marks an order shipped and reports whether it changed.
func (s *store) ship(v OrderVars) (Order, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[v]
	if !ok {
		return Order{}, false, ferry.NotFound(fmt.Sprintf("no order %d in region %s", v.ID, v.Region))
	}
	if o.Status == "shipped" {
		return o, false, nil
	}
	o.Status = "shipped"
	s.orders[v] = o
	return o, true, nil
}

func main() {
	addr := flag.String("http", "127.0.0.1:8080", "address to serve MCP on, at /mcp")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*addr, logger); err != nil {
		logger.Error("serve", "err", err)
		os.Exit(1)
	}
}

// run serves until the process is interrupted.
func run(addr string, logger *slog.Logger) error {
	srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: logger})
	addDocs(srv)
	addOrders(srv, newStore())
	srv.AddSchemaResources("shop")

	h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := ferry.NewHTTPServer(ln.Addr().String(), mux)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	logger.Info("serving", "url", "http://"+ln.Addr().String()+"/mcp")

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// The handler first: GET streams end, and the calls in flight get 5s
	// to finish before they are cancelled; then the http.Server.
	drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := ferry.ShutdownHTTPServer(drain, hs, h); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// addDocs registers the static resources: one text, one binary.
func addDocs(srv *ferry.Server) {
	priority := 0.8
	srv.AddResource(ferry.Resource{
		URI:         "docs://guide",
		Name:        "guide",
		Title:       "Orders guide",
		Description: "How to read and ship orders.",
		MIMEType:    "text/markdown",
		Annotations: &ferry.Annotations{
			Audience:     []ferry.Role{ferry.RoleUser, ferry.RoleAssistant},
			Priority:     &priority,
			LastModified: "2026-05-01T09:00:00Z",
		},
	}, func(ctx context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		return []ferry.ResourceContents{{URI: req.URI, MIMEType: "text/markdown", Text: guide}}, nil
	})
	srv.AddResource(ferry.Resource{
		URI:         "docs://logo.png",
		Name:        "logo",
		Description: "The shop's logo.",
		MIMEType:    "image/png",
		Size:        int64(len(logo)),
	}, func(ctx context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		return []ferry.ResourceContents{{URI: req.URI, MIMEType: "image/png", Blob: logo}}, nil
	})
}

// addOrders registers the order template and the tool that ships an order.
func addOrders(srv *ferry.Server, st *store) {
	ferry.AddResourceTemplate(srv, ferry.ResourceTemplate{
		URITemplate: "orders://{region}/{id}",
		Name:        "order",
		Description: "One order, by region and id.",
		MIMEType:    "application/json",
	}, func(ctx context.Context, uri string, v OrderVars) ([]ferry.ResourceContents, error) {
		o, ok := st.order(v)
		if !ok {
			return nil, fmt.Errorf("%w: no order %d in region %s", ferry.ErrResourceNotFound, v.ID, v.Region)
		}
		data, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		return []ferry.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}, nil
	})
	ferry.AddTool(srv, ferry.Tool{Name: "ship_order", Description: "Marks an order shipped. Shipping a shipped order changes nothing.",
		Idempotent: true, ClosedWorld: true},
		func(ctx context.Context, in struct {
			Region string `json:"region" doc:"The order's region." enum:"eu,us,apac"`
			ID     int    `json:"id" doc:"The order's id." minimum:"1"`
		}) (Order, error) {
			o, changed, err := st.ship(OrderVars{in.Region, in.ID})
			if err != nil {
				return Order{}, err
			}
			if changed {
				srv.NotifyResourceUpdated(o.URI())
			}
			return o, nil
		})
}
