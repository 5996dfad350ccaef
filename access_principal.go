package ferry

import (
	"context"
	"slices"
	"time"
)

// Principal is the authenticated caller of a request: who it is, what it
// may do, and what its credential said. An authenticator in front of the
// HTTP handler (or the code that starts [Server.Run]) builds one and sets
// it on the context with [WithPrincipal]; tool handlers, [ToolMiddleware],
// [ServerOptions.Visible] and the call log read it. A Principal is shared
// by every request that carries it: treat it as read-only once set.
type Principal struct {
	// Subject identifies the caller, stable across its credentials: a user
	// id, a service account, a key's name. The call log records it, and
	// request state and stateless session ids are bound to it.
	Subject string
	// Scopes are what the credential grants, such as OAuth scopes. An
	// entry's Scopes are compared with them (see [Server.MissingScopes]).
	Scopes []string
	// Roles are the groups the caller belongs to, such as "admin". An
	// entry's Roles are compared with them (see [Principal.HasAnyRole]).
	Roles []string
	// Expires is when the credential stops being valid, or zero.
	Expires time.Time
	// Claims holds whatever else the authenticator learnt (a token's
	// claims, an API key's metadata), for handlers that need it.
	Claims map[string]any
}

type principalKey struct{}

// WithPrincipal returns a context that carries the authenticated caller.
// Authentication middleware in front of the HTTP handler sets it on the
// request's context; for stdio, set it on the context passed to
// [Server.Run]. A nil p removes any principal set further up.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFromContext returns the caller set by [WithPrincipal], and false
// when the request is anonymous.
func PrincipalFromContext(ctx context.Context) (*Principal, bool) {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p, p != nil
}

// subjectOf returns the subject of ctx's principal, or "" for an
// anonymous caller.
func subjectOf(ctx context.Context) string {
	if p, ok := PrincipalFromContext(ctx); ok {
		return p.Subject
	}
	return ""
}

// HasAnyRole reports whether p belongs to at least one of roles, or
// whether roles is empty. A nil p has no role.
func (p *Principal) HasAnyRole(roles []string) bool {
	if len(roles) == 0 {
		return true
	}
	if p == nil {
		return false
	}
	for _, r := range roles {
		if slices.Contains(p.Roles, r) {
			return true
		}
	}
	return false
}
