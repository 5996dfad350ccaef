package ferry

import (
	"context"
	"math"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"time"
)

// This file holds access: who the caller is ([Principal]), what he may
// see and do with each tool, prompt and resource, judged once per request
// by [Server.resolve], and how much: the per-caller limits on tool calls,
// a number of calls in flight and a rate (a token bucket), whose
// defaults and options are in limits.go.

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

// callerKey identifies a caller for the limits: a principal's issuer and
// subject, an anonymous HTTP client's network, or the anonymous stdio
// client. It holds the network as a [netip.Prefix], not its text, so that
// keying a call allocates nothing.
type callerKey struct {
	kind   uint8 // keyPrincipal, keyIP or keyStdio
	id     string
	issuer string // a principal's
	net    netip.Prefix
}

const (
	keyPrincipal uint8 = iota + 1
	keyIP
	keyStdio
)

// callerOf returns the key of r's caller.
func (l *callLimits) callerOf(r *request) callerKey {
	if p := r.caller; p != nil {
		return callerKey{kind: keyPrincipal, id: p.Subject, issuer: p.Issuer}
	}
	if r.peer.remote != "" {
		return l.network(r.peer.remote)
	}
	return callerKey{kind: keyStdio}
}

// network returns [clientNetwork] of remote, remembering the last one.
func (l *callLimits) network(remote string) callerKey {
	l.netMu.Lock()
	defer l.netMu.Unlock()
	if remote != l.lastRemote {
		l.lastRemote, l.lastNet = remote, clientNetwork(remote)
	}
	return l.lastNet
}

// clientNetwork returns the key of an anonymous HTTP client at remote: the
// network it is counted by, its IPv4 address or the /64 prefix of its IPv6
// address, since one client commonly holds a whole /64; or, for a remote
// address that is no IP, its host.
func clientNetwork(remote string) callerKey {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return callerKey{kind: keyIP, id: host}
	}
	ip = ip.Unmap()
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return callerKey{kind: keyIP, net: p}
}

// callerState is one caller's calls in flight and token bucket.
type callerState struct {
	inflight int
	tokens   float64
	last     time.Time // when tokens was computed
}

// callLimits enforces [Limits.MaxCallsPerCaller], CallRate and
// CallBurst. It is safe for concurrent use; each call costs one map
// lookup under its mutex, and no goroutine runs for it.
type callLimits struct {
	maxInflight int     // 0: no limit
	rate        float64 // tokens per second; 0: no rate limit
	burst       float64
	now         func() time.Time // the clock, replaced by tests
	// tooManyAtOnce refuses a call beyond maxInflight, naming the limit.
	tooManyAtOnce error

	mu        sync.Mutex // guards the fields below
	callers   map[callerKey]*callerState
	overflow  callerState // shared by callers beyond MaxTrackedCallers
	nextSweep time.Time   // no sweep of idle callers before then

	// lastRemote and lastNet are the last anonymous HTTP client's address
	// and its key: a client's calls come one after another, and parsing
	// its address again for each costs more than the rest of the keying.
	netMu      sync.Mutex
	lastRemote string
	lastNet    callerKey
}

// newCallLimits returns the limits opts ask for, or nil when there are
// none.
func newCallLimits(opts *ServerOptions) *callLimits {
	l := &callLimits{now: time.Now, callers: map[callerKey]*callerState{}}
	switch n := opts.Limits.MaxCallsPerCaller; {
	case n == 0:
		l.maxInflight = DefaultMaxCallsPerCaller
	case n > 0:
		l.maxInflight = n
	}
	switch r := opts.Limits.CallRate; {
	case r == 0:
		l.rate = DefaultCallRate
	case r > 0:
		l.rate = r
	}
	l.burst = float64(opts.Limits.CallBurst)
	if opts.Limits.CallBurst <= 0 {
		l.burst = DefaultCallBurst
	}
	if l.maxInflight == 0 && l.rate == 0 {
		return nil
	}
	l.overflow.tokens = l.burst
	l.tooManyAtOnce = Unavailable("too many calls at once: a caller may have " + strconv.Itoa(l.maxInflight) +
		" running (MaxCallsPerCaller); retry when one returns, or have the server's operator raise the limit (ferry serve: -max-calls-per-caller)")
	return l
}

// tooFast refuses a call beyond [Limits.CallRate] and CallBurst, naming
// them; wait is when the bucket holds a call again, in seconds.
func (l *callLimits) tooFast(wait float64) error {
	return Unavailable("too many calls: a caller may make " + strconv.FormatFloat(l.rate, 'g', -1, 64) + " a second, bursts of " +
		strconv.FormatFloat(l.burst, 'g', -1, 64) + " (CallRate, CallBurst); retry in " + strconv.Itoa(max(1, int(wait))) +
		"s, or have the server's operator raise the limit (ferry serve: -call-rate, -call-burst)")
}

// admit takes a place for one call of key, or returns the refusal to
// answer with. release gives the place back.
func (l *callLimits) admit(key callerKey) (st *callerState, refusal error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	st = l.stateLocked(key, now)
	if l.maxInflight > 0 && st.inflight >= l.maxInflight {
		return nil, l.tooManyAtOnce
	}
	if l.rate > 0 {
		st.tokens = l.refilled(st, now)
		st.last = now
		if st.tokens < 1 {
			return nil, l.tooFast(math.Ceil((1 - st.tokens) / l.rate))
		}
		st.tokens--
	}
	st.inflight++
	return st, nil
}

// release gives back the place st took in admit.
func (l *callLimits) release(st *callerState) {
	l.mu.Lock()
	st.inflight--
	l.mu.Unlock()
}

// refilled returns st's tokens at now.
func (l *callLimits) refilled(st *callerState, now time.Time) float64 {
	return min(l.burst, st.tokens+now.Sub(st.last).Seconds()*l.rate)
}

// stateLocked returns key's state, tracking it if there is room, and
// otherwise the shared overflow state. When MaxTrackedCallers are tracked,
// a new caller makes the server forget the idle ones first; a sweep that
// frees less than an eighth of the room makes the next wait a second, so
// that a sweep's cost stays a few map entries per new caller. The caller
// holds l.mu.
func (l *callLimits) stateLocked(key callerKey, now time.Time) *callerState {
	if st, ok := l.callers[key]; ok {
		return st
	}
	if len(l.callers) >= MaxTrackedCallers && !now.Before(l.nextSweep) {
		for k, st := range l.callers {
			if st.inflight == 0 && (l.rate == 0 || l.refilled(st, now) >= l.burst) {
				delete(l.callers, k)
			}
		}
		if len(l.callers) > MaxTrackedCallers-MaxTrackedCallers/8 {
			l.nextSweep = now.Add(time.Second)
		}
	}
	if len(l.callers) >= MaxTrackedCallers {
		return &l.overflow
	}
	st := &callerState{tokens: l.burst, last: now}
	l.callers[key] = st
	return st
}
