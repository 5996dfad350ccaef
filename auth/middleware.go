package auth

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/ferry-mcp/ferry"
)

// Options configures [Middleware].
type Options struct {
	// Authenticators are asked in order; the first that finds a credential
	// of its kind decides (see [Authenticator]), and the credentials the
	// later ones read are not looked at. With [JWT] before [APIKeys], a
	// request carrying both a JWT and an X-API-Key is the JWT's caller,
	// and is refused if the JWT is, whatever the key. At least one is
	// required.
	Authenticators []Authenticator
	// AllowAnonymous serves a request that carries no credential, with no
	// principal on its context (the ferry server then shows it only what
	// needs no scope and no role). A credential that is sent and refused
	// still gets 401. If false, a request without a credential gets 401.
	AllowAnonymous bool
	// Resource, if not nil, is named in every challenge
	// (resource_metadata), so clients find the authorization server. An
	// OAuth deployment sets it; a deployment with API keys only may not.
	Resource *Resource
	// Scopes are the scopes the 401 challenge asks a client to request at
	// first (the scope parameter). offline_access is left out. If empty,
	// the challenge has no scope parameter, and clients ask for the
	// resource's scopes_supported.
	Scopes []string
	// Logger receives a record for each refused request (at Debug: a
	// refused credential, without the credential; at Warn: an
	// authenticator that could not decide). If nil, [slog.Default].
	Logger *slog.Logger
}

// Middleware returns HTTP middleware that authenticates every request
// (every method: POST, GET and DELETE alike) before next sees it, and
// puts the caller on its context with [ferry.WithPrincipal]. It answers
// itself, with a JSON-RPC error body, when:
//
//   - the query string has an access_token parameter: 400 with
//     error="invalid_request", whatever else the request carries, since
//     a token in a URL leaks into logs and histories (RFC 6750 §2.3,
//     MCP "Token Handling"); the token is not used;
//   - no credential was sent and AllowAnonymous is false: 401 with a
//     challenge without error (RFC 6750 §3);
//   - a credential was sent and refused, or an Authorization header was
//     sent that no authenticator accepts: 401 with error="invalid_token"
//     and the refusal's [InvalidCredentialError.Reason];
//   - an authenticator could not decide: 503.
//
// Middleware panics if opts has no authenticator or a scope is not a
// valid scope-token: both are programming errors.
func Middleware(opts *Options) func(http.Handler) http.Handler {
	m := newMiddleware(opts)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			m.serve(w, r, next)
		})
	}
}

type middleware struct {
	auths     []Authenticator
	anonymous bool
	logger    *slog.Logger
	// The challenges, formatted once but for refused's description.
	missing, badRequest string
	refused             Challenge
}

func newMiddleware(opts *Options) *middleware {
	if opts == nil || len(opts.Authenticators) == 0 {
		panic("auth: Middleware needs at least one Authenticator") //nolint:forbidigo // a programming error at construction
	}
	for _, s := range opts.Scopes {
		if err := checkScope(s); err != nil {
			panic(err.Error()) //nolint:forbidigo // a programming error at construction
		}
	}
	m := &middleware{auths: append([]Authenticator(nil), opts.Authenticators...), anonymous: opts.AllowAnonymous, logger: opts.Logger}
	if m.logger == nil {
		m.logger = slog.Default()
	}
	var meta string
	if opts.Resource != nil {
		meta = opts.Resource.MetadataURL()
	}
	m.missing = Challenge{Scopes: opts.Scopes, ResourceMetadata: meta}.String()
	m.refused = Challenge{Error: ErrorInvalidToken, ResourceMetadata: meta}
	m.badRequest = Challenge{Error: ErrorInvalidRequest, ResourceMetadata: meta,
		Description: "tokens are not accepted in the query string"}.String()
	return m
}

func (m *middleware) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if r.URL.RawQuery != "" && r.URL.Query().Has("access_token") {
		m.logger.DebugContext(r.Context(), "auth: refused a token in the query string", "remote", r.RemoteAddr)
		writeRefusal(w, http.StatusBadRequest, m.badRequest, "bad request: tokens are not accepted in the query string")
		return
	}
	p, err := m.authenticate(r)
	var bad *InvalidCredentialError
	switch {
	case err == nil:
		next.ServeHTTP(w, r.WithContext(ferry.WithPrincipal(r.Context(), p)))
	case errors.Is(err, ErrNoCredential) && m.anonymous:
		next.ServeHTTP(w, r)
	case errors.Is(err, ErrNoCredential):
		writeRefusal(w, http.StatusUnauthorized, m.missing, "unauthorized: this server needs a credential")
	case errors.As(err, &bad):
		m.logger.DebugContext(r.Context(), "auth: refused a credential", "remote", r.RemoteAddr, "err", err)
		ch := m.refused
		ch.Description = bad.Reason
		writeRefusal(w, http.StatusUnauthorized, ch.String(), "unauthorized: "+bad.Reason)
	case r.Context().Err() != nil:
		// The client left while its credential was being checked (a
		// key set fetch it waited for): no one reads an answer.
		m.logger.DebugContext(r.Context(), "auth: the client left during the check", "remote", r.RemoteAddr, "err", err)
	default:
		m.logger.WarnContext(r.Context(), "auth: could not check a credential", "remote", r.RemoteAddr, "err", err)
		writeRefusal(w, http.StatusServiceUnavailable, "", "unavailable: the credential could not be checked, retry later")
	}
}

// authenticate asks the authenticators in order.
func (m *middleware) authenticate(r *http.Request) (*ferry.Principal, error) {
	for _, a := range m.auths {
		p, err := a.Authenticate(r)
		if errors.Is(err, ErrNoCredential) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, errors.New("auth: an Authenticator returned no principal and no error")
		}
		return p, nil
	}
	if len(r.Header.Values("Authorization")) > 0 {
		return nil, invalid(reasonNotAccepted, errors.New("no authenticator accepts the Authorization header"))
	}
	return nil, ErrNoCredential
}

// writeRefusal answers with status, the challenge (if any) and a
// JSON-RPC error without id.
func writeRefusal(w http.ResponseWriter, status int, challenge, msg string) {
	h := w.Header()
	if challenge != "" {
		h.Set("WWW-Authenticate", challenge)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	code := ferry.CodeInvalidRequest
	if status == http.StatusServiceUnavailable {
		code = ferry.CodeInternalError
	}
	body, _ := json.Marshal(refusal{JSONRPC: "2.0", Error: refusalError{Code: int64(code), Message: msg}})
	_, _ = w.Write(body)
}

// refusal is the JSON-RPC error response of a refused request: its id is
// null, since the body was not read.
type refusal struct {
	JSONRPC string       `json:"jsonrpc"`
	ID      *int         `json:"id"`
	Error   refusalError `json:"error"`
}

type refusalError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}
