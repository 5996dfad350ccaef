package ferry

import (
	"crypto/hmac"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"time"
)

// This file holds the ids of stateless legacy HTTP sessions: signed
// tokens that carry what the session would keep.

// Stateless session tokens carry the negotiated version and what the client
// can do, signed, so that any replica holding the key can serve the session
// with nothing stored. Format 2 is
//
//	format(1) issued(8, unix seconds) version(1) capabilities(1) random(8) [principal(16)]
//
// where capabilities holds the client's sampling, elicitation and roots
// in its three low bits and the extensions it declared (see [Extension])
// in those above, and the optional principal field binds the session to
// the subject and
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
	bits |= byte(caps.ext) << 3 // the extensions it declared, in the bits above
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
	t.caps = clientCaps{sampling: p[10]&1 != 0, elicitation: p[10]&2 != 0, roots: p[10]&4 != 0, ext: extensions(p[10] >> 3)}
	if len(p) > tokenLen {
		t.bound = true
		copy(t.principal[:], p[tokenLen:])
	}
	return t, nil
}
