package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
)

// shutdownTimeout bounds the wait for calls in flight when ferry serve is
// stopped.
const shutdownTimeout = 5 * time.Second

// checkExposure refuses to serve a non-loopback address with no
// authentication, unless -insecure says so. It runs before anything is
// opened, so the mistake costs nothing.
func (c *serveConfig) checkExposure() error {
	if c.stdio || c.apiKeyEnv != "" || c.jwks != "" || c.insecure || isLoopback(c.httpAddr) {
		return nil
	}
	return serveUsage(fmt.Sprintf("-http %s is reachable from other machines and no authentication is set: give -api-key-env NAME or -jwt-jwks URL, or -insecure to serve it open", c.httpAddr))
}

// isLoopback reports whether addr (host:port) listens on loopback only.
// An empty host listens on every interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveHTTP listens, builds the authentication the flags ask for, and
// serves srv at /mcp until ctx ends.
func (s *server) serveHTTP(ctx context.Context, srv *ferry.Server, a *authSetup) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.cfg.httpAddr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w; is another server using the port? (-http ADDR picks another)", s.cfg.httpAddr, err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	resource := s.cfg.resource
	if resource == "" {
		resource = "http://" + addr + "/mcp"
	}
	mw, res, err := s.authentication(a, resource)
	if err != nil {
		return err
	}
	hosts := append([]string(nil), s.cfg.allowHosts...)
	if u, err := url.Parse(resource); err == nil && u.Host != "" {
		hosts = append(hosts, u.Host)
	}
	// With -confirm, a 2025 client's session is kept, so that the
	// confirmation can be asked in it (a stateless one has no stream for
	// the question); the 2026-07-28 era is stateless either way.
	hopts := &ferry.HTTPOptions{AllowedHosts: hosts, Stateful: s.cfg.confirm}
	mux := http.NewServeMux()
	if res != nil {
		res.Mount(mux)
		hopts.ResourceMetadataURL = res.MetadataURL()
	}
	h, err := newHandler(srv, hopts)
	if err != nil {
		return err
	}
	mux.Handle("/mcp", mw(h))
	s.mountHealth(mux, h, "http://"+addr)
	if err := s.mountGroups(mux, srv, hopts, mw, "http://"+addr+"/mcp"); err != nil {
		return err
	}
	s.mountUI(mux, srv, h, mw, "http://"+addr)
	hs := ferry.NewHTTPServer(addr, mux)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	// The note comes before the listening line, which a script (and the
	// tests) take as the end of start-up.
	if !isLoopback(addr) && len(s.cfg.allowHosts) == 0 && s.cfg.resource == "" {
		s.say("note: only requests for a loopback host are served; give -allow-host NAME (or -resource-url URL) for the name other machines use")
	}
	s.say("listening on http://%s/mcp", addr)
	s.sayConnect("http://"+addr+"/mcp", a)
	select {
	case err := <-errc:
		return fmt.Errorf("serving %s: %w", addr, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	// The MCP handler first: /readyz fails from the start of its drain.
	if err := ferry.ShutdownHTTPServer(sctx, hs, h); err != nil {
		// Streams still open (a GET stream, subscriptions/listen) are
		// cut: the user asked to stop.
		s.say("stopping: connections still open after %s are closed", shutdownTimeout)
		_ = hs.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving %s: %w", addr, err)
	}
	return nil
}

// sayConnect prints the commands that list the tools and connect Claude
// Code, with the header the authentication asks for (never a key).
func (s *server) sayConnect(endpoint string, a *authSetup) {
	header, install := "", ""
	switch {
	case a.apiKeys.StaticKeys != nil:
		header = ` -header "X-API-Key: <a key of $` + s.cfg.apiKeyEnv + `>"`
		install = ` -header 'X-API-Key: ${DB_MCP_KEY}' (with one key in $DB_MCP_KEY where the client runs)`
	case a.jwks != nil:
		header = ` -header "Authorization: Bearer <token>"`
		install = ` -header 'Authorization: Bearer ${DB_MCP_TOKEN}' (with a token in $DB_MCP_TOKEN where the client runs)`
	}
	s.say("list the tools: ferry tools%s %s", header, endpoint)
	s.say("connect Claude Code: claude mcp add --transport http db %s%s", endpoint, strings.Replace(header, "-header", "--header", 1))
	s.say("or write a client's configuration (claude-code, claude-desktop, cursor, vscode): ferry install claude-code db %s%s", endpoint, install)
}

// newHandler is ferry.NewHTTPHandler with its start-up check's panic
// turned into an error: the check runs again there, and a table dropped
// since build checked it must stop start-up with a message, not a panic.
func newHandler(srv *ferry.Server, opts *ferry.HTTPOptions) (h *ferry.HTTPHandler, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the database's tables cannot be served: %s", joinLines(fmt.Errorf("%v", r)))
		}
	}()
	return ferry.NewHTTPHandler(srv, opts), nil
}

// authSetup is the credentials the flags accept, read and checked
// before anything is opened.
type authSetup struct {
	jwks    *auth.RemoteKeySet // nil without -jwt-jwks
	apiKeys staticKeys         // zero without -api-key-env
}

// close stops the JWKS fetcher.
func (a *authSetup) close() {
	if a.jwks != nil {
		_ = a.jwks.Close()
	}
}

// prepareAuth reads and checks the authentication flags, so that a
// mistake in them stops ferry serve before it opens the database.
func (s *server) prepareAuth() (*authSetup, error) {
	a := &authSetup{}
	if s.cfg.jwks != "" {
		// The issuer and resource URL are checked as the resource will
		// take them; the real resource names the bound address.
		uri := s.cfg.resource
		if uri == "" {
			uri = "http://127.0.0.1/mcp"
		}
		if _, err := auth.NewResource(uri, []string{s.cfg.issuer}, nil); err != nil {
			return nil, serveUsage("-jwt-issuer or -resource-url: " + err.Error())
		}
		keys, err := auth.NewRemoteKeySet(s.cfg.jwks, &auth.RemoteKeySetOptions{Logger: s.log})
		if err != nil {
			return nil, serveUsage("-jwt-jwks: " + err.Error())
		}
		a.jwks = keys
		// A JWKS that does not answer yet is not fatal (the identity
		// provider may start later), but the user should know.
		ctx, cancel := context.WithTimeout(context.Background(), auth.DefaultJWKSTimeout)
		err = keys.Refresh(ctx)
		cancel()
		if err != nil {
			s.say("warning: cannot fetch the JWKS at %s yet (%s); tokens get 503 until it answers", s.cfg.jwks, joinLines(err))
		}
	}
	if s.cfg.apiKeyEnv != "" {
		keys, err := apiKeys(s.cfg.apiKeyEnv, s.env.getenv(s.cfg.apiKeyEnv))
		if err != nil {
			a.close()
			return nil, err
		}
		a.apiKeys = keys
		if keys.short > 0 {
			s.say("note: %d %s in $%s %s shorter than %d characters, which a client could guess; use random ones (openssl rand -hex 16)",
				keys.short, plural(keys.short, "key", "keys"), s.cfg.apiKeyEnv, plural(keys.short, "is", "are"), weakKeyLength)
		}
	}
	return a, nil
}

// authentication returns the middleware the flags ask for and the RFC
// 9728 resource when JWTs are accepted, for the endpoint at resource. It
// says on stderr which mode it is.
func (s *server) authentication(a *authSetup, resource string) (func(http.Handler) http.Handler, *auth.Resource, error) {
	var (
		authns []auth.Authenticator
		res    *auth.Resource
		modes  []string
	)
	if a.jwks != nil {
		var err error
		if res, err = auth.NewResource(resource, []string{s.cfg.issuer}, nil); err != nil {
			return nil, nil, serveUsage("-resource-url: " + err.Error())
		}
		aud := s.cfg.audience
		if aud == "" {
			aud = res.URI()
		}
		jwt, err := auth.NewJWT(&auth.JWTOptions{Keys: a.jwks, Issuer: s.cfg.issuer, Audiences: []string{aud}, RequireType: s.cfg.jwtTyp})
		if err != nil {
			return nil, nil, serveUsage("-jwt-issuer or -jwt-audience: " + err.Error())
		}
		authns = append(authns, jwt)
		modes = append(modes, fmt.Sprintf("JWT bearer tokens of %s for audience %s (keys from %s; metadata at %s)", s.cfg.issuer, aud, s.cfg.jwks, res.MetadataURL()))
	}
	if a.apiKeys.StaticKeys != nil {
		authns = append(authns, auth.APIKeys(a.apiKeys.Lookup, nil))
		modes = append(modes, fmt.Sprintf("API keys from $%s (%d)", s.cfg.apiKeyEnv, a.apiKeys.Len()))
	}
	if len(authns) == 0 {
		if isLoopback(s.cfg.httpAddr) {
			s.say("auth: none (loopback only)")
		} else {
			s.say("auth: NONE (-insecure): anyone who reaches %s can call the tools", s.cfg.httpAddr)
		}
		return func(h http.Handler) http.Handler { return h }, nil, nil
	}
	s.say("auth: %s", strings.Join(modes, "; "))
	mw := auth.Middleware(&auth.Options{Authenticators: authns, Resource: res, Logger: s.log})
	return mw, res, nil
}

// weakKeyLength is the length under which start-up says an API key is
// weak: 16 characters, as 8 random bytes in hex (ferry demo refuses
// shorter ones; serve may be given keys it did not choose, so it warns).
const weakKeyLength = 16

// staticKeys is the accepted API keys.
type staticKeys struct {
	*auth.StaticKeys
	n     int
	short int // keys shorter than weakKeyLength
}

func (k staticKeys) Len() int { return k.n }

// apiKeys reads the comma-separated keys of an environment variable; each
// key's caller is named after its place in the list ("api-key-1"), never
// after the key. Its issuer is [auth.APIKeyIssuer], so a JWT whose sub is
// "api-key-1" is another caller.
func apiKeys(name, value string) (staticKeys, error) {
	m := map[string]*ferry.Principal{}
	short := 0
	for k := range strings.SplitSeq(value, ",") {
		if k = strings.TrimSpace(k); k != "" && m[k] == nil {
			m[k] = &ferry.Principal{Subject: "api-key-" + strconv.Itoa(len(m)+1)}
			if len(k) < weakKeyLength {
				short++
			}
		}
	}
	if len(m) == 0 {
		return staticKeys{}, serveUsage(fmt.Sprintf("-api-key-env %s: $%s is empty or unset; set it to the accepted keys, comma-separated", name, name))
	}
	keys, err := auth.NewStaticKeys(m)
	if err != nil {
		// The error may quote a key: say only which rule it broke.
		return staticKeys{}, serveUsage(fmt.Sprintf("-api-key-env %s: a key in $%s is not usable (control characters, or over %d bytes)", name, name, auth.MaxTokenBytes))
	}
	return staticKeys{keys, len(m), short}, nil
}
