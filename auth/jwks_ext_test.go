package auth_test

import (
	"net/http"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/ferry-mcp/ferry/auth"
)

// unavailable is the answer when no key set could be fetched.
var unavailable = answer{
	status: http.StatusServiceUnavailable,
	body:   `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"unavailable: the credential could not be checked, retry later"}}`,
}

// A key added to the JWKS (rotation) is found on the first token that
// names it, once the refresh interval has passed.
func TestRotatedKeyIsFetched(t *testing.T) {
	p := newProtected(t, &auth.RemoteKeySetOptions{RefreshInterval: 50 * time.Millisecond})
	k := testKeys()
	if got := modernCall(t, p.url, "echo", "", bearer(rsaToken(t, claims("alice")))...); got.status != http.StatusOK {
		t.Fatalf("before rotation: %+v", got)
	}
	p.jwks.setKeys(t, jose.JSONWebKey{Key: &k.rsa2.PublicKey, KeyID: "rsa-2", Algorithm: "RS256", Use: "sig"})
	time.Sleep(60 * time.Millisecond)
	tok := sign(t, "RS256", k.rsa2, "rsa-2", claims("alice"))
	if got := modernCall(t, p.url, "echo", "", bearer(tok)...); got.status != http.StatusOK {
		t.Fatalf("a token of the new key: %+v", got)
	}
	if n := p.jwks.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
}

// A set is cached for the response's max-age, within bounds: no fetch
// before it passes, one after.
func TestKeySetHonoursMaxAge(t *testing.T) {
	p := newProtected(t, &auth.RemoteKeySetOptions{RefreshInterval: 10 * time.Millisecond})
	p.jwks.maxAge.Store("public, max-age=1")
	call := func() {
		t.Helper()
		if got := modernCall(t, p.url, "echo", "", bearer(rsaToken(t, claims("alice")))...); got.status != http.StatusOK {
			t.Fatalf("call: %+v", got)
		}
	}
	call()
	time.Sleep(100 * time.Millisecond)
	call()
	if n := p.jwks.fetches.Load(); n != 1 {
		t.Fatalf("within max-age: %d fetches, want 1", n)
	}
	time.Sleep(time.Second)
	call()
	deadline := time.Now().Add(2 * time.Second)
	for p.jwks.fetches.Load() != 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := p.jwks.fetches.Load(); n != 2 {
		t.Fatalf("past max-age: %d fetches, want 2", n)
	}
}

// Refresh fetches at once and reports a failure; Close stops a fetch
// under way without waiting for the server.
func TestRemoteKeySetRefreshAndClose(t *testing.T) {
	s := newJWKS(t)
	keys, err := auth.NewRemoteKeySet(s.URL, &auth.RemoteKeySetOptions{Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := keys.Refresh(t.Context()); err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	if _, err := keys.Key(t.Context(), "ec-1", "ES256"); err != nil {
		t.Fatalf("Key(ec-1): %v", err)
	}
	if _, err := keys.Key(t.Context(), "ec-1", "RS256"); err == nil {
		t.Fatal("Key(ec-1, RS256) found a key for an algorithm its key cannot verify")
	}
	keys.Close()

	s.mode.Store("slow")
	slow, err := auth.NewRemoteKeySet(s.URL, &auth.RemoteKeySetOptions{Logger: discard, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- slow.Refresh(t.Context()) }()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	slow.Close()
	if err := <-errc; err == nil {
		t.Error("Refresh of a closed set reported no error")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close took %s", d)
	}
	s.mode.Store("")
	if err := slow.Refresh(t.Context()); err != nil {
		t.Errorf("Refresh after Close: %v, want nil (nothing fetched)", err)
	}
}

// A token verified and remembered is refused once its key leaves the
// JWKS (a key revoked by rotation), as soon as the set is refetched.
func TestRememberedTokenOfARemovedKey(t *testing.T) {
	p := newProtected(t, &auth.RemoteKeySetOptions{RefreshInterval: 20 * time.Millisecond, MaxAge: 20 * time.Millisecond})
	tok := bearer(rsaToken(t, claims("alice")))
	for range 2 {
		if got := modernCall(t, p.url, "echo", "", tok...); got.status != http.StatusOK {
			t.Fatalf("before the rotation: %+v", got)
		}
	}
	p.jwks.setKeys(t, jose.JSONWebKey{Key: &testKeys().ec.PublicKey, KeyID: "ec-1", Algorithm: "ES256", Use: "sig"})
	deadline := time.Now().Add(3 * time.Second)
	for {
		time.Sleep(25 * time.Millisecond)
		got := modernCall(t, p.url, "echo", "", tok...)
		if got == refusedWith("the token is invalid") {
			break
		}
		if got.status != http.StatusOK || time.Now().After(deadline) {
			t.Fatalf("after the rotation: %+v, want the token refused", got)
		}
	}
}

func TestRemoteKeySetNeedsHTTPS(t *testing.T) {
	for url, ok := range map[string]bool{
		"https://login.example.com/jwks": true,
		"http://127.0.0.1:8080/jwks":     true,
		"http://localhost/jwks":          true,
		"http://[::1]:9/jwks":            true,
		"http://login.example.com/jwks":  false,
		"http://127.0.0.1.evil.com/jwks": false,
		"file:///etc/jwks.json":          false,
		"/jwks":                          false,
	} {
		s, err := auth.NewRemoteKeySet(url, nil)
		if (err == nil) != ok {
			t.Errorf("NewRemoteKeySet(%q): %v", url, err)
		}
		if s != nil {
			s.Close()
		}
	}
}
