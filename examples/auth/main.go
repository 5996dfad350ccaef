// Command auth serves tools behind authentication: API keys, and JWT
// access tokens from an OAuth authorization server, with the protected
// resource metadata (RFC 9728) MCP clients read to find that server.
//
// With API keys only (the keys come from the environment, never from the
// command line, which other users of the machine can read):
//
//	FERRY_API_KEYS='ci-bot:k-5b1e9a2f' go run ./examples/auth -http 127.0.0.1:8080
//	claude mcp add --transport http orders http://127.0.0.1:8080/mcp --header "X-API-Key: k-5b1e9a2f"
//
// With an authorization server as well (its issuer and JWKS URL, and this
// server's own URL as clients reach it, which tokens must name as their
// audience):
//
//	go run ./examples/auth -http 127.0.0.1:8080 -resource http://127.0.0.1:8080/mcp \
//	    -issuer https://login.example.com -jwks https://login.example.com/.well-known/jwks.json
//	claude mcp add --transport http orders http://127.0.0.1:8080/mcp --header "Authorization: Bearer $TOKEN"
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
)

// WhoAmI is what the whoami tool answers.
type WhoAmI struct {
	Subject string   `json:"subject" doc:"Who the caller is."`
	Scopes  []string `json:"scopes" doc:"What its credential grants."`
	Roles   []string `json:"roles" doc:"The groups it belongs to."`
}

// newServer returns the server and its tools.
func newServer(logger *slog.Logger) *ferry.Server {
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Logger: logger})
	ferry.AddTool(srv, ferry.Tool{Name: "whoami", Description: "Names the caller and what it may do.", ReadOnly: true, ClosedWorld: true},
		func(ctx context.Context, _ struct{}) (WhoAmI, error) {
			p, _ := ferry.PrincipalFromContext(ctx)
			// Empty slices, not nil: a client reads [] more easily than
			// null.
			return WhoAmI{Subject: p.Subject, Scopes: append([]string{}, p.Scopes...), Roles: append([]string{}, p.Roles...)}, nil
		})
	return srv
}

// config is what the flags and the environment say.
type config struct {
	addr, resource, issuer, jwks string
	apiKeys                      string // subject:key,subject:key
}

// protect returns the mux: the metadata (if OAuth is configured) beside
// the MCP endpoint, h, behind the middleware. The returned close releases
// the key set.
func protect(h *ferry.HTTPHandler, c config, logger *slog.Logger) (*http.ServeMux, func(), error) {
	if err := c.checkOAuth(); err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	opts := &auth.Options{Logger: logger}
	closeKeys := func() {}
	if c.issuer != "" {
		res, err := auth.NewResource(c.resource, []string{c.issuer}, &auth.ResourceOptions{Scopes: []string{"orders:read"}, Name: "Orders"})
		if err != nil {
			return nil, nil, err
		}
		keys, err := auth.NewRemoteKeySet(c.jwks, &auth.RemoteKeySetOptions{Logger: logger})
		if err != nil {
			return nil, nil, err
		}
		closeKeys = func() { _ = keys.Close() }
		tokens, err := auth.NewJWT(&auth.JWTOptions{Keys: keys, Issuer: c.issuer, Audiences: []string{res.URI()}})
		if err != nil {
			return nil, nil, err
		}
		res.Mount(mux)
		opts.Resource, opts.Scopes = res, []string{"orders:read"}
		opts.Authenticators = append(opts.Authenticators, tokens)
	}
	if c.apiKeys != "" {
		keys, err := parseKeys(c.apiKeys)
		if err != nil {
			return nil, nil, err
		}
		opts.Authenticators = append(opts.Authenticators, auth.APIKeys(keys.Lookup, nil))
	}
	if len(opts.Authenticators) == 0 {
		return nil, nil, errors.New("no credentials configured: set FERRY_API_KEYS, or -issuer, -jwks and -resource")
	}
	mux.Handle("/mcp", auth.Middleware(opts)(h))
	return mux, closeKeys, nil
}

// checkOAuth says which flag is missing when some but not all of
// -issuer, -jwks and -resource are set: the three go together, and one
// set alone would otherwise be ignored or refused with no flag named.
func (c config) checkOAuth() error {
	flags := []struct{ name, value string }{{"-issuer", c.issuer}, {"-jwks", c.jwks}, {"-resource", c.resource}}
	var set, missing []string
	for _, f := range flags {
		if f.value == "" {
			missing = append(missing, f.name)
		} else {
			set = append(set, f.name)
		}
	}
	if len(set) == 0 || len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%s given without %s: OAuth needs -issuer, -jwks and -resource", strings.Join(set, " and "), strings.Join(missing, " and "))
}

// parseKeys reads "subject:key,subject:key".
func parseKeys(s string) (*auth.StaticKeys, error) {
	m := map[string]*ferry.Principal{}
	for entry := range strings.SplitSeq(s, ",") {
		subject, key, ok := strings.Cut(strings.TrimSpace(entry), ":")
		if !ok || subject == "" || key == "" {
			return nil, fmt.Errorf("FERRY_API_KEYS: an entry is not subject:key")
		}
		if other, dup := m[key]; dup {
			return nil, fmt.Errorf("FERRY_API_KEYS: %q and %q have the same key; give each caller its own", other.Subject, subject)
		}
		m[key] = &ferry.Principal{Subject: subject, Scopes: []string{"orders:read"}}
	}
	return auth.NewStaticKeys(m)
}

func main() {
	var c config
	flag.StringVar(&c.addr, "http", "127.0.0.1:8080", "serve Streamable HTTP at `ADDR`/mcp")
	flag.StringVar(&c.resource, "resource", "", "this server's `URL` as clients reach it (the tokens' audience)")
	flag.StringVar(&c.issuer, "issuer", "", "the authorization server's issuer `URL`")
	flag.StringVar(&c.jwks, "jwks", "", "the authorization server's JWKS `URL`")
	flag.Parse()
	c.apiKeys = os.Getenv("FERRY_API_KEYS")
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, c, logger); err != nil {
		logger.Error("serve", "err", err)
		os.Exit(1)
	}
}

// serve serves until ctx is done.
func serve(ctx context.Context, c config, logger *slog.Logger) error {
	h := ferry.NewHTTPHandler(newServer(logger), nil)
	mux, closeKeys, err := protect(h, c, logger)
	if err != nil {
		return err
	}
	defer closeKeys()
	ln, err := net.Listen("tcp", c.addr)
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
