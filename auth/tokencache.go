package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/ferry-mcp/ferry"
)

// DefaultTokenCacheSize is how many verified tokens [JWT] remembers by
// default (see [JWTOptions.TokenCacheSize]).
const DefaultTokenCacheSize = 1024

// tokenCache remembers tokens whose signature and claims were verified,
// by the SHA-256 of the whole token, so a client that sends the same
// token on every request pays for one signature check. A hit is
// re-checked for what can change: the time (exp and nbf, with the
// leeway) and the signing key (still in the key set, unchanged). It holds
// at most max entries; beyond, an arbitrary one is dropped. Only tokens
// that passed verification enter it, so forged tokens cannot fill it.
type tokenCache struct {
	max int

	// mu guards m.
	mu sync.RWMutex
	m  map[[sha256.Size]byte]*verified
}

// verified is a token that passed every check.
type verified struct {
	p        *ferry.Principal
	kid, alg string
	pub      crypto.PublicKey
	nbf      time.Time // zero if the token had none
}

// sum is the key of a token in the cache.
func sum(token string) [sha256.Size]byte { return sha256.Sum256([]byte(token)) }

func newTokenCache(size int) *tokenCache {
	if size < 0 {
		return nil
	}
	if size == 0 {
		size = DefaultTokenCacheSize
	}
	return &tokenCache{max: size, m: make(map[[sha256.Size]byte]*verified)}
}

func (c *tokenCache) get(d [sha256.Size]byte) *verified {
	c.mu.RLock()
	v := c.m[d]
	c.mu.RUnlock()
	return v
}

func (c *tokenCache) put(d [sha256.Size]byte, v *verified) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[d]; !ok && len(c.m) >= c.max {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[d] = v
}

func (c *tokenCache) drop(d [sha256.Size]byte) {
	c.mu.Lock()
	delete(c.m, d)
	c.mu.Unlock()
}

// sameKey reports whether a and b are the same public key; the same
// pointer (a key set not refreshed since) is the quick answer.
func sameKey(a, b crypto.PublicKey) bool {
	switch a := a.(type) {
	case *rsa.PublicKey:
		b, ok := b.(*rsa.PublicKey)
		return ok && (a == b || a.Equal(b))
	case *ecdsa.PublicKey:
		b, ok := b.(*ecdsa.PublicKey)
		return ok && (a == b || a.Equal(b))
	case ed25519.PublicKey:
		return a.Equal(b)
	}
	return false
}
