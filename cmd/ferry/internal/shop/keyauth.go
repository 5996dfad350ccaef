package shop

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
	"github.com/ferry-mcp/ferry/route"
)

// requireKey is the REST API's own key middleware, in front of every
// /api route: a script's request and an agent's tool call alike. It takes
// the key from "Authorization: Bearer KEY" or X-API-Key, answers a
// problem document when there is none or it is wrong, and writes one
// audit record per request, naming the tool when an agent called.
func requireKey(keys auth.Authenticator, logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := keys.Authenticate(r)
		// From the context, which only the binding sets, not from headers
		// any caller can send: an audit record must not be forged.
		tool, agent := route.FromAgent(r)
		id, _ := route.RequestID(r)
		switch {
		case errors.Is(err, auth.ErrNoCredential):
			w.Header().Set("WWW-Authenticate", `Bearer realm="shop"`)
			writeProblem(w, http.StatusUnauthorized, "An API key is required: send it as Authorization: Bearer KEY.")
		case errors.Is(err, auth.ErrInvalidCredential):
			w.Header().Set("WWW-Authenticate", `Bearer realm="shop", error="invalid_token"`)
			writeProblem(w, http.StatusUnauthorized, "The API key is not valid.")
		case err != nil:
			logger.WarnContext(r.Context(), "api: checking a key failed", "err", err)
			writeProblem(w, http.StatusServiceUnavailable, "The key could not be checked; try again.")
		default:
			logger.InfoContext(r.Context(), "api", "method", r.Method, "path", r.URL.Path, "user", p.Subject,
				"agent", agent, "tool", tool, "request_id", id)
			next.ServeHTTP(w, r.WithContext(ferry.WithPrincipal(r.Context(), p)))
			return
		}
		logger.InfoContext(r.Context(), "api: refused", "method", r.Method, "path", r.URL.Path, "agent", agent, "tool", tool)
	})
}

// principal returns the caller requireKey found.
func principal(r *http.Request) (*ferry.Principal, bool) {
	p, ok := ferry.PrincipalFromContext(r.Context())
	return p, ok && p != nil
}
