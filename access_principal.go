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
	// Subject identifies the caller among those of its Issuer, stable
	// across its credentials: a user id, a service account, a key's name.
	// The call log records it.
	Subject string
	// Issuer names who vouched for Subject: a token's issuer (its iss
	// claim), or a kind of credential that has none ("api-key" for the
	// auth package's API keys). Subjects are unique only within an issuer,
	// so a caller is its Issuer and Subject together: request state,
	// sessions and the per-caller limits are bound to both, and a token
	// whose sub is an API key's name is not that key's caller. Principals
	// of different credentials are one caller only when their
	// authenticators give them the same Issuer on purpose. Empty is an
	// issuer of its own, for principals built without one.
	Issuer string
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

// identityOf returns the issuer and the subject of ctx's principal,
// or "", "" for an anonymous caller.
func identityOf(ctx context.Context) (issuer, subject string) {
	if p, ok := PrincipalFromContext(ctx); ok {
		return p.Issuer, p.Subject
	}
	return "", ""
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
