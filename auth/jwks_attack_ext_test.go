package auth_test

import (
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/auth"
	jose "github.com/go-jose/go-jose/v4"
)

// A JWKS whose keys the set must not use: a key for encryption, a 1024-bit
// RSA key, and two keys under one kid.
func TestAttackUnfitJWKSKeys(t *testing.T) {
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	k := testKeys()
	p := newProtected(t, nil)
	p.jwks.setKeys(t,
		jose.JSONWebKey{Key: &k.rsa.PublicKey, KeyID: "rsa-1", Algorithm: "RS256", Use: "sig"},
		jose.JSONWebKey{Key: &k.rsa2.PublicKey, KeyID: "enc-1", Algorithm: "RS256", Use: "enc"},
		jose.JSONWebKey{Key: &small.PublicKey, KeyID: "small-1", Algorithm: "RS256", Use: "sig"},
		jose.JSONWebKey{Key: &k.other.PublicKey, KeyID: "rsa-1", Algorithm: "RS256", Use: "sig"})
	good := claims("alice", "orders:read")
	invalid := refusedWith("the token is invalid")
	tests := []struct {
		name string
		tok  string
		ok   bool
	}{
		{"signed by the first key of a duplicated kid", rsaToken(t, good), true},
		// Fail closed: of two keys under one kid, the first that fits
		// the algorithm is the one tried.
		{"signed by the second key of a duplicated kid", sign(t, jose.RS256, k.other, "rsa-1", good), false},
		{"signed by a key for encryption", sign(t, jose.RS256, k.rsa2, "enc-1", good), false},
		{"signed by a 1024-bit key", sign(t, jose.RS256, small, "small-1", good), false},
	}
	for _, tt := range tests {
		got := modernCall(t, p.url, "echo", "", bearer(tt.tok)...)
		if tt.ok && got.status != http.StatusOK || !tt.ok && got != invalid {
			t.Errorf("%s: got %+v", tt.name, got)
		}
	}
	if _, err := auth.ParseKeySet([]byte(`{"keys":[{"kty":"RSA","use":"enc","n":"AQAB","e":"AQAB"}]}`)); err == nil {
		t.Error("ParseKeySet of only an encryption key succeeded")
	}
}

// A flood of tokens naming unknown kids costs one JWKS fetch per refresh
// interval, not one per request: concurrent requests share the fetch.
func TestAttackUnknownKidFlood(t *testing.T) {
	p := newProtected(t, &auth.RemoteKeySetOptions{RefreshInterval: 2 * time.Second})
	tokens := make([]string, 20)
	for i := range tokens {
		tokens[i] = sign(t, "ES256", testKeys().ec, "kid-"+strings.Repeat("x", i), claims("mallory"))
	}
	flood := func() {
		t.Helper()
		var wg sync.WaitGroup
		answers := make([]answer, 200)
		for i := range answers {
			wg.Go(func() {
				answers[i] = modernCall(t, p.url, "echo", "", bearer(tokens[i%len(tokens)])...)
			})
		}
		wg.Wait()
		for i, got := range answers {
			if want := refusedWith("the token is invalid"); got != want {
				t.Fatalf("request %d: got %+v, want %+v", i, got, want)
			}
		}
	}
	start := time.Now()
	flood()
	if n := p.jwks.fetches.Load(); n != 1 {
		t.Fatalf("200 unknown kids before any fetch: %d fetches, want 1", n)
	}
	flood()
	if n := p.jwks.fetches.Load(); n != 1 && time.Since(start) < 2*time.Second {
		t.Fatalf("200 more within the interval: %d fetches, want still 1", n)
	}
	time.Sleep(2 * time.Second)
	before := p.jwks.fetches.Load()
	flood()
	if n := p.jwks.fetches.Load() - before; n != 1 {
		t.Fatalf("200 more after the interval: %d fetches, want 1", n)
	}
	if p.ran.Load() != 0 {
		t.Fatal("the tool ran")
	}
}

// A JWKS server that is down, slower than the timeout, too large or not
// a JWKS: before any good fetch the token cannot be checked (503, the
// tool does not run, the request is not held past the timeout); after
// one, the last good set is kept and serves the keys it has.
func TestAttackKeySetFailures(t *testing.T) {
	for _, mode := range []string{"down", "slow", "huge", "garbage", "unreachable"} {
		t.Run(mode, func(t *testing.T) {
			opts := &auth.RemoteKeySetOptions{Timeout: time.Second, RefreshInterval: 50 * time.Millisecond, MaxAge: 50 * time.Millisecond}
			p := newProtected(t, opts)
			setMode := func() {
				if mode == "unreachable" {
					p.jwks.Close()
				} else {
					p.jwks.mode.Store(mode)
				}
			}
			fresh := newProtected(t, opts)
			if mode == "unreachable" {
				fresh.jwks.Close()
			} else {
				fresh.jwks.mode.Store(mode)
			}
			start := time.Now()
			if got := modernCall(t, fresh.url, "echo", "", bearer(rsaToken(t, claims("alice")))...); got != unavailable {
				t.Errorf("never fetched: got %+v, want %+v", got, unavailable)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("the request took %s; the fetch timeout is 1s", d)
			}
			session := initialize(t, fresh.url, "X-API-Key", adminKey)
			if got := legacyCall(t, fresh.url, session, "echo", bearer(rsaToken(t, claims("alice")))...); got != unavailable {
				t.Errorf("never fetched, legacy: got %+v, want %+v", got, unavailable)
			}
			if fresh.ran.Load() != 0 {
				t.Error("the tool ran")
			}

			if got := modernCall(t, p.url, "echo", "", bearer(rsaToken(t, claims("alice")))...); got.status != http.StatusOK {
				t.Fatalf("first fetch good: %+v", got)
			}
			setMode()
			time.Sleep(60 * time.Millisecond) // the set is now stale
			for i := range 3 {
				start := time.Now()
				got := modernCall(t, p.url, "echo", "", bearer(rsaToken(t, claims("alice")))...)
				if got.status != http.StatusOK {
					t.Errorf("call %d with the last good set: %+v", i, got)
				}
				if d := time.Since(start); d > 500*time.Millisecond {
					t.Errorf("call %d waited %s for a refresh it did not need", i, d)
				}
				time.Sleep(60 * time.Millisecond)
			}
			tok := sign(t, "RS256", testKeys().other, "rsa-9", claims("alice"))
			if got, want := modernCall(t, p.url, "echo", "", bearer(tok)...), refusedWith("the token is invalid"); got != want {
				t.Errorf("an unknown kid while failing: got %+v, want %+v", got, want)
			}
		})
	}
}
