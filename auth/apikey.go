package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry"
)

// APIKeyIssuer is the [ferry.Principal.Issuer] of a key's caller whose
// lookup leaves Issuer empty. Callers are told apart by issuer and subject
// together, so a key named "alice" and a JWT whose sub is "alice" are two
// callers, with their own sessions and limits. A [KeyLookup] that means
// a key to act as a token's subject sets that token issuer itself.
const APIKeyIssuer = "api-key"

// DefaultAPIKeyHeader is the header [APIKeys] reads a key from besides
// "Authorization: Bearer".
const DefaultAPIKeyHeader = "X-API-Key" //nolint:gosec // a header name, not a credential

// KeyLookup finds the caller an API key belongs to. It returns a nil
// principal and a nil error for a key it does not know, an error for a
// store that does not answer (the request gets 503). It is called
// concurrently, and must not log the key. It must not compare keys with
// == either, whose time tells how much of a guess is right: look a key up
// by its digest and compare in constant time, as [StaticKeys] does.
type KeyLookup func(ctx context.Context, key string) (*ferry.Principal, error)

// APIKeyOptions configures [APIKeys].
type APIKeyOptions struct {
	// Header names the header that carries a key. If empty,
	// [DefaultAPIKeyHeader].
	Header string
	// NoBearer, if set, does not take a key from
	// "Authorization: Bearer", so the header is left to another
	// authenticator. If false, a bearer token is taken as a key, after
	// the header.
	NoBearer bool
}

// APIKeys returns an [Authenticator] of API keys: a key from the header
// of opts (X-API-Key by default) or else from "Authorization: Bearer" is
// given to lookup; when both are sent, the header's key decides and the
// bearer token is not looked at. A key longer than [MaxTokenBytes], with
// control characters, or sent in more than one header line is refused
// without a lookup, as is an unknown one, or one whose principal's
// Expires has passed. A principal without an Issuer is served as a copy
// whose Issuer is [APIKeyIssuer]. Put it after [JWT] in
// [Options.Authenticators] to accept both: [JWT] leaves bearer tokens
// that are not JWTs to the next authenticator.
func APIKeys(lookup KeyLookup, opts *APIKeyOptions) Authenticator {
	if lookup == nil {
		panic("auth: APIKeys needs a lookup") //nolint:forbidigo // a programming error at construction
	}
	a := &apiKeys{lookup: lookup, header: DefaultAPIKeyHeader, bearer: opts == nil || !opts.NoBearer}
	if opts != nil && opts.Header != "" {
		a.header = http.CanonicalHeaderKey(opts.Header)
	}
	return a
}

type apiKeys struct {
	lookup KeyLookup
	header string
	bearer bool
}

// Authenticate implements [Authenticator].
func (a *apiKeys) Authenticate(r *http.Request) (*ferry.Principal, error) {
	key, err := a.key(r.Header)
	if err != nil {
		return nil, err
	}
	p, err := a.lookup(r.Context(), key)
	switch {
	case errors.Is(err, ErrInvalidCredential):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("auth: looking up an API key: %w", err)
	case p == nil:
		return nil, invalid(reasonKeyInvalid, errors.New("unknown API key"))
	case !p.Expires.IsZero() && time.Now().After(p.Expires):
		return nil, invalid(reasonKeyExpired, fmt.Errorf("the API key of %q expired at %s", p.Subject, p.Expires.Format(time.RFC3339)))
	}
	return issued(p), nil
}

// key returns the request's key, from the header first.
func (a *apiKeys) key(h http.Header) (string, error) {
	values := h.Values(a.header)
	switch {
	case len(values) > 1:
		return "", invalid(reasonKeyInvalid, fmt.Errorf("more than one %s header", a.header))
	case len(values) == 1:
		key := strings.TrimSpace(values[0])
		if err := checkKey(key); err != nil {
			return "", invalid(reasonKeyInvalid, err)
		}
		return key, nil
	case a.bearer:
		return BearerToken(h)
	}
	return "", ErrNoCredential
}

// issued returns p if it has an Issuer, and else a copy of it whose Issuer
// is [APIKeyIssuer] (p is shared, and read-only).
func issued(p *ferry.Principal) *ferry.Principal {
	if p.Issuer != "" {
		return p
	}
	c := *p
	c.Issuer = APIKeyIssuer
	return &c
}

func checkKey(key string) error {
	if key == "" {
		return errors.New("empty API key")
	}
	if len(key) > MaxTokenBytes {
		return errors.New("API key longer than MaxTokenBytes")
	}
	for i := range len(key) {
		if c := key[i]; c <= 0x20 || c >= 0x7f {
			return errors.New("API key has a character outside printable ASCII")
		}
	}
	return nil
}

// StaticKeys holds a fixed set of API keys. It keeps only their SHA-256
// digests, so the keys themselves are not kept after [NewStaticKeys]. A
// key is found by the first bytes of its digest (which tells an attacker
// timing a guess nothing about a stored key: he cannot choose a digest),
// and its whole digest is compared in constant time. It is safe for
// concurrent use.
type StaticKeys struct {
	byPrefix map[uint64][]staticKey
}

type staticKey struct {
	digest [sha256.Size]byte
	p      *ferry.Principal
}

// NewStaticKeys returns the set of keys, each mapped to its caller. It
// keeps a copy of each principal, whose Issuer is [APIKeyIssuer] if it was
// empty. It returns an error for a key [APIKeys] would refuse or a nil
// principal.
func NewStaticKeys(keys map[string]*ferry.Principal) (*StaticKeys, error) {
	s := &StaticKeys{byPrefix: make(map[uint64][]staticKey, len(keys))}
	for key, p := range keys {
		if p == nil {
			return nil, errors.New("auth: a static key maps to a nil principal")
		}
		if err := checkKey(key); err != nil {
			return nil, fmt.Errorf("auth: the static key of %q: %w", p.Subject, err)
		}
		d := sha256.Sum256([]byte(key))
		s.byPrefix[prefix(d)] = append(s.byPrefix[prefix(d)], staticKey{digest: d, p: issued(p)})
	}
	return s, nil
}

func prefix(d [sha256.Size]byte) uint64 { return binary.BigEndian.Uint64(d[:8]) }

// Lookup is a [KeyLookup]: it returns the caller of key, or nil.
func (s *StaticKeys) Lookup(_ context.Context, key string) (*ferry.Principal, error) {
	d := sha256.Sum256([]byte(key))
	for _, k := range s.byPrefix[prefix(d)] {
		if subtle.ConstantTimeCompare(k.digest[:], d[:]) == 1 {
			return k.p, nil
		}
	}
	return nil, nil
}
