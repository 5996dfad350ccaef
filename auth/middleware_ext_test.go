package auth_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
)

// serveThrough runs one request through mw in front of a handler that
// names the caller.
func serveThrough(mw func(http.Handler) http.Handler, header ...string) answer {
	h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := ferry.PrincipalFromContext(r.Context())
		if !ok {
			_, _ = w.Write([]byte("anonymous"))
			return
		}
		_, _ = w.Write([]byte(p.Subject))
	}))
	r := httptest.NewRequest("GET", "/mcp", nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return answer{rec.Code, rec.Header().Get("WWW-Authenticate"), rec.Body.String()}
}

func TestAPIKeys(t *testing.T) {
	static, err := auth.NewStaticKeys(map[string]*ferry.Principal{
		"k1":      {Subject: "one"},
		"k2":      {Subject: "two"},
		"expired": {Subject: "old", Expires: time.Now().Add(-time.Minute)},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		opts   *auth.APIKeyOptions
		header []string
		want   string // the subject, or the refusal's reason
	}{
		{"X-API-Key", nil, []string{"X-API-Key", "k1"}, "one"},
		{"bearer", nil, []string{"Authorization", "Bearer k2"}, "two"},
		{"the header first", nil, []string{"X-API-Key", "k1", "Authorization", "Bearer k2"}, "one"},
		{"own header", &auth.APIKeyOptions{Header: "x-key"}, []string{"X-Key", "k2"}, "two"},
		{"own header, X-API-Key ignored", &auth.APIKeyOptions{Header: "X-Key", NoBearer: true}, []string{"X-API-Key", "k2"}, "no credential"},
		{"no bearer", &auth.APIKeyOptions{NoBearer: true}, []string{"Authorization", "Bearer k2"}, "the credential is not accepted"},
		{"unknown", nil, []string{"X-API-Key", "k3"}, "the API key is invalid"},
		{"a prefix of a key", nil, []string{"X-API-Key", "k"}, "the API key is invalid"},
		{"expired", nil, []string{"X-API-Key", "expired"}, "the API key has expired"},
		{"twice", nil, []string{"X-API-Key", "k1", "X-API-Key", "k1"}, "the API key is invalid"},
		{"control character", nil, []string{"X-API-Key", "k\x011"}, "the API key is invalid"},
		{"too long", nil, []string{"X-API-Key", strings.Repeat("k", auth.MaxTokenBytes+1)}, "the API key is invalid"},
	}
	for _, tt := range tests {
		mw := auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{auth.APIKeys(static.Lookup, tt.opts)}, Logger: discard})
		got := serveThrough(mw, tt.header...)
		switch {
		case got.status == http.StatusOK && got.body == tt.want:
		case got.status == http.StatusUnauthorized && tt.want == "no credential" && got.challenge == "Bearer":
		case got.status == http.StatusUnauthorized && got.challenge == `Bearer error="invalid_token", error_description="`+tt.want+`"`:
		default:
			t.Errorf("%s: %+v, want %q", tt.name, got, tt.want)
		}
	}
}

// A key's caller has the Issuer APIKeyIssuer unless its lookup gave
// another, and a shared principal is never written to: StaticKeys keeps
// copies, and a lookup's principal is copied before the Issuer is set.
func TestAPIKeyCallerHasAnIssuer(t *testing.T) {
	given := &ferry.Principal{Subject: "one"}
	static, err := auth.NewStaticKeys(map[string]*ferry.Principal{"k1": given})
	if err != nil {
		t.Fatal(err)
	}
	shared := &ferry.Principal{Subject: "two"}
	own := &ferry.Principal{Subject: "three", Issuer: "https://login.example.com"}
	lookup := func(ctx context.Context, key string) (*ferry.Principal, error) {
		switch key {
		case "k2":
			return shared, nil
		case "k3":
			return own, nil
		}
		return static.Lookup(ctx, key)
	}
	for key, want := range map[string]string{"k1": auth.APIKeyIssuer, "k2": auth.APIKeyIssuer, "k3": "https://login.example.com"} {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header.Set("X-API-Key", key)
		p, err := auth.APIKeys(lookup, nil).Authenticate(r)
		if err != nil || p.Issuer != want {
			t.Errorf("key %s: principal %+v, %v; want Issuer %q", key, p, err, want)
		}
	}
	if given.Issuer != "" || shared.Issuer != "" {
		t.Errorf("the principals given were written to: %+v, %+v", given, shared)
	}
	if _, err := auth.NewJWT(&auth.JWTOptions{Keys: &auth.StaticKeySet{}, Issuer: auth.APIKeyIssuer, Audiences: []string{testResource}}); err == nil {
		t.Errorf("NewJWT with the issuer %q: no error, so its tokens could be API keys' callers", auth.APIKeyIssuer)
	}
}

// No key, good or bad, and no token reaches the log, at any level.
func TestNoCredentialIsLogged(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	static, _ := auth.NewStaticKeys(map[string]*ferry.Principal{"secret-key-1": {Subject: "one"}})
	failing := auth.KeyLookup(func(_ context.Context, key string) (*ferry.Principal, error) {
		if key == "secret-key-3" {
			return nil, errors.New("the store is down")
		}
		return static.Lookup(t.Context(), key)
	})
	mw := auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{staticJWT(t, auth.JWTOptions{}), auth.APIKeys(failing, nil)}, Logger: logger})
	tok := rsaToken(t, with(claims("alice"), "aud", "elsewhere"))
	for _, h := range [][]string{
		{"X-API-Key", "secret-key-1"}, {"X-API-Key", "secret-key-2"}, {"X-API-Key", "secret-key-3"},
		{"Authorization", "Bearer secret-key-2"}, {"Authorization", "Bearer " + tok},
	} {
		serveThrough(mw, h...)
	}
	if logs.Len() == 0 {
		t.Fatal("nothing was logged; the test would prove nothing")
	}
	sig := tok[strings.LastIndexByte(tok, '.')+1:]
	for _, secret := range []string{"secret-key", sig, tok[:40]} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log holds %q:\n%s", secret, logs.String())
		}
	}
}

func TestMiddlewareAnonymousAndUnavailable(t *testing.T) {
	static, _ := auth.NewStaticKeys(map[string]*ferry.Principal{"k1": {Subject: "one"}})
	down := auth.KeyLookup(func(context.Context, string) (*ferry.Principal, error) { return nil, errors.New("down") })
	anon := auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{auth.APIKeys(static.Lookup, nil)}, AllowAnonymous: true, Logger: discard})
	if got := serveThrough(anon); got.status != 200 || got.body != "anonymous" {
		t.Errorf("anonymous allowed, no credential: %+v", got)
	}
	if got := serveThrough(anon, "X-API-Key", "k1"); got.body != "one" {
		t.Errorf("anonymous allowed, a good key: %+v", got)
	}
	if got := serveThrough(anon, "X-API-Key", "bad"); got.status != http.StatusUnauthorized {
		t.Errorf("anonymous allowed, a bad key: %+v, want 401", got)
	}
	if got := serveThrough(anon, "Authorization", "Basic eA=="); got.status != http.StatusUnauthorized {
		t.Errorf("anonymous allowed, an unknown scheme: %+v, want 401", got)
	}
	unavailable := auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{auth.APIKeys(down, nil)}, Logger: discard})
	want := answer{503, "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"unavailable: the credential could not be checked, retry later"}}`}
	if got := serveThrough(unavailable, "X-API-Key", "k1"); got != want {
		t.Errorf("a store that does not answer: %+v, want %+v", got, want)
	}
}

func TestMiddlewarePanicsOnBadOptions(t *testing.T) {
	static, _ := auth.NewStaticKeys(map[string]*ferry.Principal{"k1": {Subject: "one"}})
	for name, opts := range map[string]*auth.Options{
		"nil":              nil,
		"no authenticator": {},
		"bad scope":        {Authenticators: []auth.Authenticator{auth.APIKeys(static.Lookup, nil)}, Scopes: []string{"a b"}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Middleware did not panic", name)
				}
			}()
			auth.Middleware(opts)
		}()
	}
}
