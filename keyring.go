package ferry

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"hash"
	"strings"
	"sync"
	"time"
)

// keyring signs and verifies tokens (stateless session ids, request state)
// with HMAC-SHA256. The first key signs; every key verifies.
type keyring struct {
	keys  [][]byte
	pools []sync.Pool // of hash.Hash, one pool per key

	seenMu sync.RWMutex            // guards seen
	seen   map[string]sessionToken // verified session ids, a bounded memo

	// random says the key was made for this process: no SigningKeys
	// were given. foreign, when set, hears of a well-formed token whose
	// signature matches no key (see [keyring.verify]).
	random  bool
	foreign func(purpose string, random bool)
}

func newKeyring(keys [][]byte) *keyring {
	k := &keyring{}
	for _, key := range keys {
		if len(key) > 0 {
			k.keys = append(k.keys, append([]byte(nil), key...))
		}
	}
	if len(k.keys) == 0 {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		k.keys, k.random = [][]byte{key}, true
	}
	k.pools = make([]sync.Pool, len(k.keys))
	for i, key := range k.keys {
		k.pools[i].New = func() any { return hmac.New(sha256.New, key) }
	}
	return k
}

var errBadSignature = errors.New("ferry: bad signature")

// sign returns payload and its MAC as "<base64url payload>.<base64url mac>",
// the MAC taken over purpose and payload so that a token made for one use
// cannot be replayed as another.
func (k *keyring) sign(purpose string, payload []byte) string {
	var sb strings.Builder
	enc := base64.RawURLEncoding
	sb.Grow(enc.EncodedLen(len(payload)) + 1 + enc.EncodedLen(sha256.Size))
	sb.WriteString(enc.EncodeToString(payload))
	sb.WriteByte('.')
	var sum [sha256.Size]byte
	sb.WriteString(enc.EncodeToString(k.mac(0, purpose, payload, sum[:0])))
	return sb.String()
}

// verify checks a token made by sign with any key and returns its payload.
func (k *keyring) verify(purpose, token string) ([]byte, error) {
	p, s, ok := strings.Cut(token, ".")
	if !ok {
		return nil, errBadSignature
	}
	enc := base64.RawURLEncoding
	var sigBuf [sha256.Size]byte
	if enc.DecodedLen(len(s)) != len(sigBuf) {
		return nil, errBadSignature
	}
	payload := make([]byte, enc.DecodedLen(len(p)))
	n1, err1 := enc.Decode(payload, []byte(p))
	n2, err2 := enc.Decode(sigBuf[:], []byte(s))
	if err1 != nil || err2 != nil || n2 != len(sigBuf) {
		return nil, errBadSignature
	}
	payload = payload[:n1]
	var sum [sha256.Size]byte
	for i := range k.keys {
		if hmac.Equal(sigBuf[:], k.mac(i, purpose, payload, sum[:0])) {
			return payload, nil
		}
	}
	// Well formed, but signed with no key of ours: forged, or signed by
	// a replica with other keys, which the operator should hear of.
	if k.foreign != nil {
		k.foreign(purpose, k.random)
	}
	return nil, errBadSignature
}

// mac appends the MAC of purpose and payload under key i to dst.
func (k *keyring) mac(i int, purpose string, payload, dst []byte) []byte {
	h := k.pools[i].Get().(hash.Hash)
	h.Reset()
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write(payload)
	dst = h.Sum(dst)
	k.pools[i].Put(h)
	return dst
}

// foreignSignatureEvery is how often at most a server logs tokens signed
// with keys it does not hold.
const foreignSignatureEvery = time.Minute

// foreignSignature logs, at most once per [foreignSignatureEvery], a
// token (a stateless session id, a request state, a list cursor) whose
// signature matches none of the server's keys. A client that forges one
// is refused either way; replicas with different keys refuse each other's
// tokens on every request, and only this log says why.
func (s *Server) foreignSignature(purpose string, random bool) {
	now := time.Now().UnixNano()
	last := s.foreignLogged.Load()
	if now-last < int64(foreignSignatureEvery) || !s.foreignLogged.CompareAndSwap(last, now) {
		return
	}
	hint := "every replica behind one endpoint needs the same ServerOptions.SigningKeys"
	if random {
		hint = "this server signs with a random key of its own (ServerOptions.SigningKeys is empty): " + hint
	}
	s.logger.Warn("ferry: refused a token signed with a key this server does not hold (a forgery, or another replica's)",
		"token", purpose, "hint", hint)
}
