package main

import (
	"flag"
	"net/http"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
	"github.com/ferry-mcp/ferry/workbench"
)

// uiConfig is -ui and -ui-trace-scope: the workbench at /ui/ and who may
// read its trace.
type uiConfig struct {
	on         bool   // -ui
	traceScope string // -ui-trace-scope: the scope a JWT caller needs to read the trace
}

func (c *uiConfig) register(fs *flag.FlagSet) {
	fs.BoolVar(&c.on, "ui", false, "serve the workbench at /ui/: a page to browse and call the tools, and to watch the calls of every client (see above)")
	fs.StringVar(&c.traceScope, "ui-trace-scope", "", "with -ui and -jwt-jwks, the `SCOPE` a token needs to read the workbench's trace (without it, tokens read no trace)")
}

// check refuses flags that do not go together.
func (c *uiConfig) check(cfg *serveConfig) error {
	switch {
	case c.traceScope != "" && !c.on:
		return serveUsage("-ui-trace-scope needs -ui")
	case c.traceScope != "" && cfg.jwks == "":
		return serveUsage("-ui-trace-scope names the scope a JWT needs: it needs -jwt-jwks (API-key callers and, on loopback without authentication, every caller read the trace)")
	case c.on && cfg.stdio:
		return serveUsage("-ui serves a page over HTTP: it does not go with -stdio")
	}
	return nil
}

// tracePolicy says who may read the workbench's trace, as the flags
// set authentication: nil when nobody may (the trace is then off), and
// why, for the start-up line.
//
//   - No authentication, on loopback: every caller, as every caller may
//     call /mcp.
//   - No authentication on another address (-insecure): nobody. The trace
//     shows every client's calls and refusals; an open server does not
//     show them to whoever reaches it.
//   - API keys: every key's caller, as every key may call /mcp.
//   - JWTs: a token that holds -ui-trace-scope; without it, no token.
func (s *server) tracePolicy(srv *ferry.Server) (may func(*ferry.Principal) bool, why string) {
	c := s.cfg
	keys, jwt := c.apiKeyEnv != "", c.jwks != ""
	switch {
	case !keys && !jwt && isLoopback(c.httpAddr):
		return func(*ferry.Principal) bool { return true }, "every caller (no authentication, loopback only)"
	case !keys && !jwt:
		return nil, "off: no authentication on a non-loopback address"
	case jwt && c.ui.traceScope == "" && !keys:
		return nil, "off: give -ui-trace-scope SCOPE to show it to tokens that hold SCOPE"
	}
	scope := c.ui.traceScope
	may = func(p *ferry.Principal) bool {
		switch {
		case p == nil:
			return false
		case p.Issuer == auth.APIKeyIssuer:
			return keys
		}
		return scope != "" && len(srv.MissingScopes(p, []string{scope})) == 0
	}
	switch {
	case keys && scope != "":
		return may, "API-key callers and tokens that hold scope " + scope
	case keys:
		return may, "API-key callers (tokens read none: -ui-trace-scope SCOPE shows it to those that hold SCOPE)"
	}
	return may, "tokens that hold scope " + scope
}

// observer returns the server's observer: the workbench's trace, with
// -ui, made on the first call.
func (s *server) observer() ferry.Observer {
	if !s.cfg.ui.on {
		return nil
	}
	if s.trace == nil {
		s.trace = workbench.NewTrace(nil)
	}
	return s.trace
}

// mountUI serves the workbench of h, the MCP endpoint at /mcp, at /ui/,
// with the trace behind mw (the endpoint's authentication) for the
// callers tracePolicy allows, and says where.
func (s *server) mountUI(mux *http.ServeMux, srv *ferry.Server, h *ferry.HTTPHandler, mw func(http.Handler) http.Handler, base string) {
	if !s.cfg.ui.on {
		return
	}
	may, why := s.tracePolicy(srv)
	opts := &workbench.Options{Title: "ferry serve", Endpoint: "/mcp", Server: srv, Auth: mw, MayReadTrace: may}
	if may != nil {
		opts.Trace = s.trace
	}
	workbench.New(h, opts).Mount(mux, "/ui")
	asks := "it asks for the credential /mcp takes"
	if s.cfg.apiKeyEnv == "" && s.cfg.jwks == "" {
		asks = "no credential: /mcp takes none"
	}
	s.say("workbench: %s/ui/ (%s; its trace: %s)", base, asks, why)
}
