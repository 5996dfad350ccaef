package ferry

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"slices"
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
	// Toolsets are the groups the session enabled with the toolset tool
	// ([ServerOptions.Toolsets]), once ToolsetsChosen; before, it is
	// served [ToolsetOptions.Enabled].
	Toolsets       []string `json:"toolsets,omitempty"`
	ToolsetsChosen bool     `json:"toolsetsChosen,omitempty"`
}

// ClientCapabilities is the part of a client's declared capabilities that
// the server acts on: which questions it may ask the client. The rest of
// the capabilities object is not kept, so a session costs the same
// whatever its client declares.
type ClientCapabilities struct {
	Sampling    bool `json:"sampling,omitempty"`
	Elicitation bool `json:"elicitation,omitempty"`
	Roots       bool `json:"roots,omitempty"`
	// Extensions are the identifiers of the extensions the client
	// declared, among those Ferry knows (see [Extension]).
	Extensions []string `json:"extensions,omitempty"`
}

// Speaks reports whether the client declared the extension e.
func (c ClientCapabilities) Speaks(e Extension) bool {
	return slices.Contains(c.Extensions, e.String())
}

// clientCaps is what the client declared it can do, as the server reads
// it on every request.
type clientCaps struct {
	sampling    bool
	elicitation bool
	roots       bool
	ext         extensions // the extensions it declared, of those Ferry knows
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
		var ext map[string]json.RawMessage
		if json.Unmarshal(m["extensions"], &ext) == nil {
			for id := range ext {
				c.ext |= extensions(extensionOf(id))
			}
		}
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
	return clientCaps{sampling: c.Sampling, elicitation: c.Elicitation, roots: c.Roots, ext: extensionsOf(c.Extensions)}
}

func (c clientCaps) exported() ClientCapabilities {
	return ClientCapabilities{Sampling: c.sampling, Elicitation: c.elicitation, Roots: c.roots, Extensions: c.ext.list()}
}

// clone returns a copy of s that shares nothing with it.
func (s *SessionState) clone() *SessionState {
	c := *s
	c.Subscriptions = slices.Clone(s.Subscriptions)
	c.Toolsets = slices.Clone(s.Toolsets)
	c.ClientCapabilities.Extensions = slices.Clone(s.ClientCapabilities.Extensions)
	return &c
}

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

// newSessionID returns a random id of visible ASCII.
func newSessionID() string {
	var b [18]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
