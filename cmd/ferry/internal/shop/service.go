package shop

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
	"github.com/ferry-mcp/ferry/workbench"
)

// Options configures [New].
type Options struct {
	// Keys are the accepted API keys, each with its caller. At least one
	// is required: every request to /api and /mcp needs one.
	Keys map[string]*ferry.Principal
	// RouteKey, if not empty, is sent as the bearer key of every request
	// an order tool routes to the REST API, for a server whose MCP
	// requests carry no credentials of their own (stdio). It must be one
	// of Keys. Over HTTP, leave it empty: the caller's own key travels.
	RouteKey string
	// AllowedHosts are the Host headers the MCP endpoint serves besides
	// loopback ones (see [ferry.HTTPOptions.AllowedHosts]).
	AllowedHosts []string
	// Logger receives the call log and the API's audit records. If nil,
	// nothing is logged.
	Logger *slog.Logger
	// Now is the clock of new orders and events. If nil, time.Now.
	Now func() time.Time
}

// Service is the demo shop: its store, its REST API behind its key
// middleware, and its MCP server, whose order tools call that API.
type Service struct {
	Store *Store
	// MCP is the shop's MCP server.
	MCP *ferry.Server
	// Trace keeps the last calls MCP answered, of every client, for the
	// workbench's trace.
	Trace *workbench.Trace
	// API is the REST API (paths under /api) behind its key middleware.
	API http.Handler

	keys         auth.Authenticator
	logger       *slog.Logger
	allowedHosts []string
	mcpHTTP      *ferry.HTTPHandler // made by the first Handler call
	db           *sql.DB
	groupHTTP    *ferry.HTTPHandler // the group endpoints, /mcp/{group}, made with mcpHTTP
}

// New assembles the shop over db, a database [Open] returned. It fails
// when a start-up check of the MCP server fails (a bound route that does
// not exist, a schema clients reject).
func New(ctx context.Context, db *sql.DB, opts *Options) (*Service, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if len(o.Keys) == 0 {
		return nil, errors.New("shop: no API keys")
	}
	if o.RouteKey != "" && o.Keys[o.RouteKey] == nil {
		return nil, errors.New("shop: the route key is not one of the keys")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	static, err := auth.NewStaticKeys(o.Keys)
	if err != nil {
		return nil, err
	}
	s := &Service{Store: NewStore(db, o.Now), keys: auth.APIKeys(static.Lookup, nil), logger: o.Logger,
		allowedHosts: append([]string(nil), o.AllowedHosts...), db: db}
	mux := http.NewServeMux()
	(&API{store: s.Store, logger: o.Logger}).Routes(mux)
	s.API = requireKey(s.keys, o.Logger, mux)
	s.Trace = workbench.NewTrace(nil)
	s.MCP, err = newMCP(ctx, db, s.Store, s.API, mux, s.Trace, o)
	if err != nil {
		return nil, err
	}
	if err := s.MCP.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

// Handler serves the REST API under /api/ and MCP at /mcp, and each
// group of the MCP server at /mcp/{group}, all behind the API key, the
// workbench at /ui/ (its trace behind the API key too: the page sends the
// key it was given), and /healthz and /readyz without it (see [ferry.HealthHandler]: ready while
// MCP is not draining and the database answers). Call it once, before
// serving; [Service.Shutdown] drains what it serves.
func (s *Service) Handler() http.Handler {
	mw := auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{s.keys}, Logger: s.logger})
	if s.mcpHTTP == nil {
		s.mcpHTTP = ferry.NewHTTPHandler(s.MCP, &ferry.HTTPOptions{AllowedHosts: s.allowedHosts})
		s.groupHTTP = ferry.NewHTTPHandler(s.MCP, &ferry.HTTPOptions{AllowedHosts: s.allowedHosts, GroupPathValue: "group"})
	}
	root := http.NewServeMux()
	root.Handle("/api/", s.API)
	root.Handle("/mcp", mw(s.mcpHTTP))
	root.Handle("/mcp/{group}", mw(s.groupHTTP))
	workbench.New(s.mcpHTTP, &workbench.Options{Title: "shop", Endpoint: "/mcp", Trace: s.Trace, Server: s.MCP, Auth: mw}).Mount(root, "/ui")
	ferry.NewHealthHandler(&ferry.HealthOptions{
		Handlers: []*ferry.HTTPHandler{s.mcpHTTP, s.groupHTTP},
		Checks:   []ferry.HealthCheck{{Name: "database", Check: s.db.PingContext}},
		Logger:   s.logger,
	}).Mount(root)
	return root
}

// Shutdown stops hs, which serves [Service.Handler], in the order that
// loses nothing: MCP first (new requests refused, streams ended, running
// calls given until ctx ends), then hs. See [ferry.ShutdownHTTPServer].
func (s *Service) Shutdown(ctx context.Context, hs *http.Server) error {
	if s.mcpHTTP == nil {
		return hs.Shutdown(ctx)
	}
	return errors.Join(s.groupHTTP.Shutdown(ctx), ferry.ShutdownHTTPServer(ctx, hs, s.mcpHTTP))
}
