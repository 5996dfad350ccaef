// Command entities serves a shop's products and categories from a SQLite
// file as entity tools: get_product, list_products (with a CEL filter,
// paging, ordering and full-text search), create_product,
// update_product, delete_product, and the same for categories but
// delete_category (left out with Options.Exclude). The database is created
// and seeded on first run. No tool takes SQL.
//
// Run it in this directory (a module of its own); -db defaults to shop.db
// here. -read-only serves the get and list tools only.
//
// It serves Streamable HTTP on loopback by default (put authentication in
// front of any other address), or stdio:
//
//	go run . -db shop.db
//	go run . -stdio
//	go run . -read-only
//
// A model then calls, for example,
//
//	list_products {"filter": "price < 20.0 && name.contains(\"saw\")", "orderBy": "price desc"}
//	list_products {"search": "workshop drill", "top": 5}
//	get_product {"sku": "HT-001"}
//	update_product {"sku": "HT-001", "stock": 12}
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

func main() {
	path := flag.String("db", "shop.db", "the SQLite database `file`, created and seeded if absent")
	addr := flag.String("http", "127.0.0.1:8080", "serve Streamable HTTP at `addr`/mcp")
	stdio := flag.Bool("stdio", false, "serve over stdio instead of HTTP")
	readOnly := flag.Bool("read-only", false, "serve the read tools only")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *path, *addr, *stdio, *readOnly, logger); err != nil {
		logger.Error("entities", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, path, addr string, stdio, readOnly bool, logger *slog.Logger) error {
	db, err := openShop(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	srv, err := newServer(ctx, db, readOnly, logger)
	if err != nil {
		return err
	}
	if stdio {
		return srv.Run(ctx, &ferry.StdioTransport{})
	}
	return serveHTTP(ctx, addr, srv, logger)
}

// newServer returns a server with the shop's entity tools and schema
// resources. The products' list tool searches when the database has
// their search index (openShop creates it).
func newServer(ctx context.Context, db *sql.DB, readOnly bool, logger *slog.Logger) (*ferry.Server, error) {
	srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: logger})
	set, err := entity.NewSet(srv, db, &entity.SetOptions{Engine: entity.SQLite, ReadOnly: readOnly})
	if err != nil {
		return nil, err
	}
	if _, err := entity.Add[Category](set, &entity.Options{Exclude: []entity.Op{entity.Delete}}); err != nil {
		return nil, err
	}
	products, err := entity.Of[Product]()
	if err != nil {
		return nil, err
	}
	searcher, err := entity.FindSearchIndex(ctx, db, entity.SQLite, products)
	if err != nil {
		return nil, err
	}
	if _, err := set.Add(products, &entity.Options{Searcher: searcher}); err != nil {
		return nil, err
	}
	set.AddResources("shop")
	return srv, nil
}

// serveHTTP serves srv at addr/mcp until ctx is done.
func serveHTTP(ctx context.Context, addr string, srv *ferry.Server, logger *slog.Logger) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", ferry.NewHTTPHandler(srv, nil))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := ferry.NewHTTPServer(ln.Addr().String(), mux)
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	logger.Info("serving", "url", "http://"+ln.Addr().String()+"/mcp")
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
