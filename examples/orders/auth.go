package main

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strings"

	"github.com/ferry-mcp/ferry/route"
)

// Key is what an API key allows.
type Key struct {
	User  string
	Write bool // may change things; a key without it may only read
}

// userKey is the context key of the caller's Key.
type userKey struct{}

// Auth is the service's own API-key middleware, in front of every API
// route: a browser's call, a script's and an agent's tool call alike. It
// takes the key from "Authorization: Bearer KEY" or X-Api-Key, lets read
// keys only GET, and writes one audit record per request, saying which
// tool an agent called.
func Auth(keys map[string]Key, logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := lookupKey(keys, r)
		tool, agent := route.FromAgent(r)
		// The request id from the context, not the header, which any
		// caller can set: an audit record must not carry a forged one.
		id, _ := route.RequestID(r)
		logger.InfoContext(r.Context(), "api", "method", r.Method, "path", r.URL.Path, "user", key.User,
			"agent", agent, "tool", tool, "request_id", id)
		switch {
		case !ok:
			w.Header().Set("WWW-Authenticate", `Bearer realm="orders"`)
			writeProblem(w, http.StatusUnauthorized, "An API key is required: send it as a bearer token.")
		case !key.Write && r.Method != http.MethodGet && r.Method != http.MethodHead:
			writeProblem(w, http.StatusForbidden, "This API key may only read; "+key.User+" cannot change orders.")
		default:
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, key)))
		}
	})
}

// lookupKey finds the request's key, comparing in constant time.
func lookupKey(keys map[string]Key, r *http.Request) (Key, bool) {
	got := r.Header.Get("X-Api-Key")
	if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		got = v
	}
	if got == "" {
		return Key{}, false
	}
	for k, v := range keys {
		if subtle.ConstantTimeCompare([]byte(k), []byte(got)) == 1 {
			return v, true
		}
	}
	return Key{}, false
}
