package ferry

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// SessionState is what a stateful legacy session remembers between
// requests. A [SessionStore] keeps it.
type SessionState struct {
	// ID is the session id sent in the Mcp-Session-Id header.
	ID string `json:"id"`
	// ProtocolVersion is the version negotiated by initialize.
	ProtocolVersion string `json:"protocolVersion"`
	// ClientCapabilities is what the client declared it can answer.
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	// LogLevel is the level set by logging/setLevel, or empty.
	LogLevel string `json:"logLevel,omitempty"`
	// Subscriptions are the resource URIs the client subscribed to, at
	// most [MaxSubscriptions].
	Subscriptions []string `json:"subscriptions,omitempty"`
	// Subject is the [Principal.Subject] of the caller that initialized
	// the session, or empty for an anonymous one. A session with a Subject
	// serves that caller only (the same Subject and Issuer): to anyone
	// else its id is unknown.
	Subject string `json:"subject,omitempty"`
	// Issuer is the [Principal.Issuer] of the caller that initialized the
	// session. A store must keep it with Subject: one that drops it gives
	// the session to any caller of that subject, whoever vouched for him.
	Issuer string `json:"issuer,omitempty"`
	// Stream names the handler holding the session's GET stream, when
	// replicas share a store that relays ([SessionRelay]): a subscription
	// made on another replica is answered once that handler has it, so
	// that an update made right after the answer reaches the stream. Empty
	// while no such stream is open, and once a subscription found the
	// holder gone (it did not confirm in time). A store that does not keep
	// it works as before the field: subscriptions do not wait.
	Stream string `json:"stream,omitempty"`
}

// ClientCapabilities is the part of a client's declared capabilities that
// the server acts on: which questions it may ask the client. The rest of
// the capabilities object is not kept, so a session costs the same
// whatever its client declares.
type ClientCapabilities struct {
	Sampling    bool `json:"sampling,omitempty"`
	Elicitation bool `json:"elicitation,omitempty"`
	Roots       bool `json:"roots,omitempty"`
}

// clientCaps is what the client declared it can do, as the server reads
// it on every request.
type clientCaps struct {
	sampling    bool
	elicitation bool
	roots       bool
}

// parseClientCaps reads the capabilities a legacy client declared at
// initialize: the members present, whatever their values.
func parseClientCaps(raw json.RawMessage) clientCaps {
	var c clientCaps
	if len(raw) == 0 {
		return c
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil {
		_, c.sampling = m["sampling"]
		_, c.elicitation = m["elicitation"]
		_, c.roots = m["roots"]
	}
	return c
}

// legacyState is what a legacy session or stdio connection remembers.
// Its methods return an error to answer the request with.
type legacyState interface {
	setLevel(ctx context.Context, l LogLevel) error
	subscribe(ctx context.Context, uri string, on bool) error
}

func (c ClientCapabilities) caps() clientCaps {
	return clientCaps{sampling: c.Sampling, elicitation: c.Elicitation, roots: c.Roots}
}

func (c clientCaps) exported() ClientCapabilities {
	return ClientCapabilities{Sampling: c.sampling, Elicitation: c.elicitation, Roots: c.roots}
}

// clone returns a copy of s that shares nothing with it.
func (s *SessionState) clone() *SessionState {
	c := *s
	c.Subscriptions = slices.Clone(s.Subscriptions)
	return &c
}

// ErrTooManySessions is returned by [SessionStore.Create] when the store
// holds as many sessions as it may.
var ErrTooManySessions = errors.New("ferry: too many open sessions")

// SessionStore keeps the state of stateful legacy sessions, for
// [HTTPOptions.Stateful]. Every method must be safe for concurrent use,
// including on one session; ctx bounds the call. Errors other than the
// sentinels below are failures of the store itself: the handler logs them
// and answers that the session store is unavailable, naming the store by
// its String method if it has one (keep it short: clients see it).
//
// A session unused for longer than the store's idle timeout expires: from
// then on it is not found. Load and Update count as use. Sessions are
// never found after Delete.
//
// [ferrytest.RunSessionStoreTests] checks an implementation against this
// contract. A store shared by replicas should also implement
// [SessionRelay].
//
// [ferrytest.RunSessionStoreTests]: https://pkg.go.dev/github.com/ferry-mcp/ferry/ferrytest#RunSessionStoreTests
type SessionStore interface {
	// Create stores a new session. The store keeps its own copy of s.
	// It returns [ErrTooManySessions] when the store is full; a session
	// id is random and never created twice.
	Create(ctx context.Context, s *SessionState) error
	// Load returns a copy of the session's state, which the caller may
	// change freely without changing the store. It returns
	// [ErrSessionNotFound] for an id that is unknown, expired or deleted.
	Load(ctx context.Context, id string) (*SessionState, error)
	// Update changes one session atomically: it calls f with a copy of the
	// current state and stores what f leaves in it, unless f returns an
	// error, in which case nothing changes and Update returns that error.
	// Concurrent updates of one session are applied one after the other,
	// each seeing the state the previous one left: none is lost. f may be
	// called more than once (a store may retry on a conflict), so it must
	// do nothing but change the state; it must not change the ID. Update
	// returns [ErrSessionNotFound] when the session is unknown, expired or
	// deleted, without calling f.
	Update(ctx context.Context, id string, f func(*SessionState) error) error
	// Delete forgets a session. It returns [ErrSessionNotFound] for an id
	// that is unknown, expired or already deleted.
	Delete(ctx context.Context, id string) error
}

// DefaultSessionIdleTimeout is how long an idle stateful session lives when
// [MemorySessionStore.IdleTimeout] is zero.
const DefaultSessionIdleTimeout = 30 * time.Minute

// DefaultMaxSessions is the most sessions a [MemorySessionStore] holds
// when its MaxSessions is zero, and so the most stateful sessions an
// [HTTPHandler] keeps open when [HTTPOptions.MaxSessions] is zero.
const DefaultMaxSessions = 10000

// MemorySessionStore is a [SessionStore] in this process's memory. Idle
// sessions are dropped lazily, as later sessions are created, so an idle
// session costs a few hundred bytes and no goroutine. The zero value is
// ready to use. It is safe for concurrent use.
type MemorySessionStore struct {
	// IdleTimeout is how long a session may go unused. If zero,
	// [DefaultSessionIdleTimeout] is used.
	IdleTimeout time.Duration
	// MaxSessions is the most sessions held at once; Create returns
	// [ErrTooManySessions] beyond it. If zero, [DefaultMaxSessions]. A
	// full store takes a new session once an idle one has expired, at
	// most a hundredth of IdleTimeout after it did.
	MaxSessions int

	mu       sync.Mutex // guards the fields below
	sessions map[string]*memSession
	// nextSweep is when Create next sweeps, full or not; fullSweep is
	// when it may sweep sooner because the store is full: once the oldest
	// session may have expired, but no more than once per
	// [fullSweepDivisor]th of the idle timeout. Both are unix nanoseconds.
	nextSweep int64
	fullSweep int64
	sweeps    int // sweeps run, for tests

	relay memRelay // the store's [SessionRelay]
}

// A full [MemorySessionStore] sweeps at most once per this fraction of its
// idle timeout: a Create it refuses costs a map lookup, not a scan of
// every session, and a session that expires makes room at most this late.
const fullSweepDivisor = 100

type memSession struct {
	lastSeen atomic.Int64 // unix nanoseconds

	mu    sync.Mutex // guards state
	state *SessionState
}

func (m *MemorySessionStore) timeout() time.Duration {
	if m.IdleTimeout > 0 {
		return m.IdleTimeout
	}
	return DefaultSessionIdleTimeout
}

func (m *MemorySessionStore) max() int {
	if m.MaxSessions > 0 {
		return m.MaxSessions
	}
	return DefaultMaxSessions
}

// Create implements [SessionStore].
func (m *MemorySessionStore) Create(ctx context.Context, s *SessionState) error {
	now := time.Now().UnixNano()
	e := &memSession{state: s.clone()}
	e.lastSeen.Store(now)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sessions == nil {
		m.sessions = make(map[string]*memSession)
	}
	full := len(m.sessions) >= m.max()
	if now >= m.nextSweep || full && now >= m.fullSweep {
		m.sweep(now)
		full = len(m.sessions) >= m.max()
	}
	if full {
		return ErrTooManySessions
	}
	m.sessions[s.ID] = e
	return nil
}

// sweep drops idle sessions; the caller holds m.mu. It runs once per
// tenth of the idle timeout, so its cost is spread thin, and sooner only
// when the store is full and a session may have expired (see
// [MemorySessionStore.fullSweep]).
func (m *MemorySessionStore) sweep(now int64) {
	timeout := int64(m.timeout())
	limit := now - timeout
	oldest := now
	for id, e := range m.sessions {
		seen := e.lastSeen.Load()
		if seen < limit {
			delete(m.sessions, id)
		} else if seen < oldest {
			oldest = seen
		}
	}
	m.sweeps++
	m.nextSweep = now + timeout/10
	// A session's last use only moves forward, and a later session's
	// starts later, so none expires before the oldest kept one.
	m.fullSweep = max(oldest+timeout+1, now+timeout/fullSweepDivisor)
}

// get returns the live session id, marking it used.
func (m *MemorySessionStore) get(id string) (*memSession, error) {
	m.mu.Lock()
	e, ok := m.sessions[id]
	m.mu.Unlock()
	now := time.Now().UnixNano()
	if !ok || e.lastSeen.Load() < now-int64(m.timeout()) {
		return nil, ErrSessionNotFound
	}
	e.lastSeen.Store(now)
	return e, nil
}

// Load implements [SessionStore]. It counts as use of the session.
func (m *MemorySessionStore) Load(ctx context.Context, id string) (*SessionState, error) {
	e, err := m.get(id)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.state.clone(), nil
}

// Update implements [SessionStore]. It counts as use of the session; f
// runs once, with the session locked.
func (m *MemorySessionStore) Update(ctx context.Context, id string, f func(*SessionState) error) error {
	e, err := m.get(id)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.state.clone()
	if err := f(st); err != nil {
		return err
	}
	st.ID = id
	e.state = st
	return nil
}

// Delete implements [SessionStore].
func (m *MemorySessionStore) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		return ErrSessionNotFound
	}
	delete(m.sessions, id)
	if e.lastSeen.Load() < time.Now().UnixNano()-int64(m.timeout()) {
		return ErrSessionNotFound // expired already
	}
	return nil
}

// Len returns the number of sessions held, idle ones not yet dropped
// included.
func (m *MemorySessionStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// newSessionID returns a random id of visible ASCII.
func newSessionID() string {
	var b [18]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Stateless session tokens carry the negotiated version and what the client
// can do, signed, so that any replica holding the key can serve the session
// with nothing stored. Format 2 is
//
//	format(1) issued(8, unix seconds) version(1) capabilities(1) random(8) [principal(16)]
//
// where the optional principal field binds the session to the subject and
// issuer of the [Principal] that initialized it: a MAC of them, keyed like
// the token so that the token does not reveal whom it belongs to. A token
// with the field is refused when presented by anyone else, anonymous
// callers included; a token without it serves any caller.
const tokenFormat = 2

const (
	tokenLen          = 1 + 8 + 1 + 1 + 8
	tokenPrincipalLen = 16
)

// tokenVersions numbers the legacy versions in session tokens. The numbers
// are part of the token format: append new versions, never reorder, so that
// replicas of different releases read each other's tokens. 0 is no version.
var tokenVersions = [...]string{1: Version20250326, 2: Version20250618, 3: Version20251125}

var tokenVersion = func() map[string]byte {
	m := make(map[string]byte, len(tokenVersions))
	for i, v := range tokenVersions {
		if v != "" {
			m[v] = byte(i)
		}
	}
	return m
}()

type sessionToken struct {
	issued  time.Time
	version string
	caps    clientCaps
	// bound marks a token bound to a principal; principal is its field.
	bound     bool
	principal [tokenPrincipalLen]byte
	// issuer and subject are the caller that last presented the bound
	// token and matched, kept in the memo so that its later requests skip
	// the MAC.
	issuer, subject string
}

// The purposes of a principal field's MAC: of the subject alone for a
// principal without an issuer (as before issuers were known, so that
// such tokens stay valid), and of the issuer's length, the issuer and the
// subject otherwise. The two never match each other.
const (
	purposePrincipal       = "session-principal"
	purposeIssuedPrincipal = "session-issued-principal"
)

// principalMAC returns the first tokenPrincipalLen bytes of the MAC under
// key i that binds a token to the caller issuer, subject.
func (k *keyring) principalMAC(i int, issuer, subject string, dst []byte) []byte {
	var sum [32]byte
	if issuer == "" {
		return append(dst, k.mac(i, purposePrincipal, []byte(subject), sum[:0])[:tokenPrincipalLen]...)
	}
	payload := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen64+len(issuer)+len(subject)), uint64(len(issuer)))
	payload = append(append(payload, issuer...), subject...)
	return append(dst, k.mac(i, purposeIssuedPrincipal, payload, sum[:0])[:tokenPrincipalLen]...)
}

func (k *keyring) issueSession(version string, caps clientCaps, p *Principal) string {
	var buf [tokenLen + tokenPrincipalLen]byte
	b := buf[:tokenLen]
	b[0] = tokenFormat
	binary.BigEndian.PutUint64(b[1:], uint64(time.Now().Unix()))
	b[9] = tokenVersion[version]
	var bits byte
	if caps.sampling {
		bits |= 1
	}
	if caps.elicitation {
		bits |= 2
	}
	if caps.roots {
		bits |= 4
	}
	b[10] = bits
	_, _ = rand.Read(b[11:tokenLen])
	if p != nil && p.Subject != "" { // a principal without a subject is anonymous, as in a stateful session
		b = k.principalMAC(0, p.Issuer, p.Subject, b)
	}
	return k.sign("session", b)
}

// errSessionOfAnother is a session id presented by a caller other than
// the one that opened it. It answers as an unknown session does, and is
// logged.
var errSessionOfAnother = fmt.Errorf("%w: it belongs to another caller", ErrSessionNotFound)

// checkSession verifies a stateless session id presented by p (nil when
// anonymous): [ErrSessionNotFound] if it is forged or expired, and
// errSessionOfAnother if it is bound to another principal.
func (k *keyring) checkSession(id string, ttl time.Duration, p *Principal) (sessionToken, error) {
	k.seenMu.RLock()
	t, ok := k.seen[id]
	k.seenMu.RUnlock()
	if !ok {
		var err error
		if t, err = k.verifySession(id); err != nil {
			return sessionToken{}, err
		}
	}
	if time.Since(t.issued) > ttl {
		return sessionToken{}, ErrSessionNotFound
	}
	if t.bound {
		if p == nil {
			return sessionToken{}, errSessionOfAnother
		}
		// A memoized bound token holds the caller that matched it.
		if !ok || p.Subject != t.subject || p.Issuer != t.issuer {
			if !k.boundTo(&t, p.Issuer, p.Subject) {
				return sessionToken{}, errSessionOfAnother
			}
			t.issuer, t.subject, ok = p.Issuer, p.Subject, false
		}
	}
	if !ok {
		k.remember(id, t)
	}
	return t, nil
}

// boundTo reports whether a bound token's principal field is the caller
// issuer, subject's, under any key, so that tokens outlive a key rotation
// as long as their signatures do.
func (k *keyring) boundTo(t *sessionToken, issuer, subject string) bool {
	var mac [tokenPrincipalLen]byte
	for i := range k.keys {
		if hmac.Equal(t.principal[:], k.principalMAC(i, issuer, subject, mac[:0])) {
			return true
		}
	}
	return false
}

// maxSeenSessions bounds the memo of verified session ids.
const maxSeenSessions = 4096

// remember memoizes a verified session id, so that a client's later
// requests skip the HMAC. The memo is bounded and forgotten whole when
// full; it is a cache, not state: any replica verifies any id.
func (k *keyring) remember(id string, t sessionToken) {
	k.seenMu.Lock()
	defer k.seenMu.Unlock()
	if k.seen == nil || len(k.seen) >= maxSeenSessions {
		k.seen = make(map[string]sessionToken, 64)
	}
	k.seen[id] = t
}

// verifySession checks a session id's signature and decodes it.
func (k *keyring) verifySession(id string) (sessionToken, error) {
	p, err := k.verify("session", id)
	if err != nil || (len(p) != tokenLen && len(p) != tokenLen+tokenPrincipalLen) ||
		p[0] != tokenFormat || p[9] == 0 || int(p[9]) >= len(tokenVersions) {
		return sessionToken{}, ErrSessionNotFound
	}
	t := sessionToken{issued: time.Unix(int64(binary.BigEndian.Uint64(p[1:])), 0), version: tokenVersions[p[9]]}
	t.caps = clientCaps{sampling: p[10]&1 != 0, elicitation: p[10]&2 != 0, roots: p[10]&4 != 0}
	if len(p) > tokenLen {
		t.bound = true
		copy(t.principal[:], p[tokenLen:])
	}
	return t, nil
}
