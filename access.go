package ferry

import (
	"context"
	"slices"
	"time"
)

// This file holds access: who the caller is ([Principal]), and what he
// may see and do with each tool, prompt and resource, judged once per
// request by [Server.resolve].

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

// MissingScopes returns the scopes in need that p does not hold, in the
// order of need, under [ServerOptions.ScopeImplies]: what a step-up
// challenge asks for. It returns nil when p holds them all. A nil p holds
// no scope.
func (s *Server) MissingScopes(p *Principal, need []string) []string {
	var missing []string
	for _, n := range need {
		if !s.grants(p, n) {
			missing = append(missing, n)
		}
	}
	return missing
}

// grants reports whether p holds a scope that grants need.
func (s *Server) grants(p *Principal, need string) bool {
	if p == nil {
		return false
	}
	if slices.Contains(p.Scopes, need) {
		return true
	}
	if s.opts.ScopeImplies == nil {
		return false
	}
	for _, held := range p.Scopes {
		// An empty held scope (a token's "a  b" split on spaces) implies
		// nothing, whatever the hook says: strings.HasPrefix(need, held)
		// would grant it every scope.
		if held != "" && s.opts.ScopeImplies(held, need) {
			return true
		}
	}
	return false
}

// access is what a caller may do with an entry.
type access uint8

const (
	accessOK     access = iota // listed and served
	accessHidden               // not listed; answers as an unknown name
	accessStepUp               // listed; a call needs more scopes ([ServerOptions.StepUp])
)

// accessTo tells what the caller of ctx may do with an entry that needs
// scopes (every one) and roles (any one). A caller who lacks a role, or a
// scope, does not see it; with stepUp, an authenticated caller who holds a
// role but lacks a scope sees it and is asked for the scope.
func (s *Server) accessTo(ctx context.Context, scopes, roles []string, stepUp bool) access {
	if len(scopes) == 0 && len(roles) == 0 {
		return accessOK
	}
	p, _ := PrincipalFromContext(ctx)
	if !p.HasAnyRole(roles) {
		return accessHidden
	}
	for _, n := range scopes {
		if !s.grants(p, n) {
			if stepUp && p != nil {
				return accessStepUp
			}
			return accessHidden
		}
	}
	return accessOK
}

// toolAccess tells what the caller of ctx may do with a tool: a tool that
// writes on a read-only server, one whose requirements the caller does not
// meet, and one [ServerOptions.Visible] hides are hidden; see accessTo for
// step-up.
func (s *Server) toolAccess(ctx context.Context, t *ToolInfo) access {
	if s.opts.ReadOnly && t.Writes() {
		return accessHidden
	}
	a := s.accessTo(ctx, t.Scopes, t.Roles, s.opts.StepUp)
	if a != accessHidden && s.opts.Visible != nil && !s.opts.Visible(ctx, *t) {
		return accessHidden
	}
	return a
}

// Allows reports whether the caller of ctx (its [Principal], or none) may
// call t now: the server is not [ServerOptions.ReadOnly] or t does not
// write, the caller holds one of t's roles and every one of its scopes
// (under [ServerOptions.ScopeImplies]), and [ServerOptions.Visible] does
// not hide it. It is the rule tools/call applies, for an authorizer in
// front of the handler that reads [Server.Catalog], which lists every
// tool. Like Visible, it must not be called from Visible itself.
func (s *Server) Allows(ctx context.Context, t ToolInfo) bool {
	return s.toolAccess(ctx, &t) == accessOK
}

// allowsEntry reports whether the caller of ctx may see an entry of a
// prompt or a resource: they have no step-up.
func (s *Server) allowsEntry(ctx context.Context, scopes, roles []string) bool {
	return s.accessTo(ctx, scopes, roles, false) == accessOK
}

// stepUpMissing returns the scopes of need the caller of ctx lacks, as a
// step-up names them: without offline_access, which the 2026-07-28 rules
// keep out of challenges, unless it is all that is missing.
func (s *Server) stepUpMissing(ctx context.Context, need []string) []string {
	p, _ := PrincipalFromContext(ctx)
	missing := s.MissingScopes(p, need)
	if rest := slices.DeleteFunc(slices.Clone(missing), func(sc string) bool { return sc == "offline_access" }); len(rest) > 0 {
		return rest
	}
	return missing
}

// mayHide reports whether t can be hidden from anyone, so that the
// common case (no requirements, no hook) skips building what toolAccess
// reads.
func (s *Server) mayHide(t *ToolInfo) bool {
	return s.opts.ReadOnly || s.opts.Visible != nil || len(t.Scopes) > 0 || len(t.Roles) > 0
}
