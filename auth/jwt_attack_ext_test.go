package auth_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// signWith signs c with key under alg and kid, adding the extra protected
// headers.
func signWith(t *testing.T, alg jose.SignatureAlgorithm, key any, kid string, c map[string]any, extra map[jose.HeaderKey]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("at+jwt")
	for k, v := range extra {
		opts = opts.WithHeader(k, v)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// counter is a loopback server that counts the requests it gets: a jku or
// x5u a token names must never be fetched.
func counter(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		http.Error(w, "no", http.StatusNotFound)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

// Odd spellings of the Authorization header, and headers a token names
// that must be ignored, through the real HTTP handler in both eras.
func TestAttackTokenEncodingsAndHeaders(t *testing.T) {
	p := newProtected(t, nil)
	k := testKeys()
	good := claims("alice", "orders:read")
	tok := rsaToken(t, good)
	attacker, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	fetched, hits := counter(t)
	attackerJWK := jose.JSONWebKey{Key: &attacker.PublicKey, KeyID: "rsa-1", Algorithm: "RS256", Use: "sig"}
	jwkJSON, _ := attackerJWK.MarshalJSON()
	var jwkHeader map[string]any
	_ = json.Unmarshal(jwkJSON, &jwkHeader)
	now := time.Now()
	invalid := refusedWith("the token is invalid")
	malformed := refusedWith("the Authorization header is malformed")
	tests := []struct {
		name string
		cred []string
		want answer
		ran  string
	}{
		{name: "bearer in lower case", cred: []string{"Authorization", "bearer " + tok}, ran: "alice"},
		{name: "BEARER in upper case", cred: []string{"Authorization", "BEARER " + tok}, ran: "alice"},
		{name: "two spaces after the scheme", cred: []string{"Authorization", "Bearer  " + tok}, ran: "alice"},
		{name: "a tab after the scheme", cred: []string{"Authorization", "Bearer\t" + tok}, want: refusedWith("the credential is not accepted")},
		{name: "a space inside the token", cred: []string{"Authorization", "Bearer " + tok[:20] + " " + tok[20:]}, want: malformed},
		{name: "padding on the signature", cred: bearer(tok + "=="), want: invalid},
		{name: "standard base64 characters", cred: bearer(strings.ReplaceAll(strings.ReplaceAll(tok, "-", "+"), "_", "/")), want: invalid},
		{name: "an empty Authorization beside a good one", cred: append([]string{"Authorization", ""}, bearer(tok)...), want: malformed},
		{name: "a very long header", cred: bearer(strings.Repeat("a", 200<<10)), want: malformed},
		{name: "crit naming an unknown header", cred: bearer(signWith(t, jose.RS256, k.rsa, "rsa-1", good,
			map[jose.HeaderKey]any{"crit": []string{"x-must"}, "x-must": true})), want: invalid},
		{name: "crit naming exp", cred: bearer(signWith(t, jose.RS256, k.rsa, "rsa-1", good,
			map[jose.HeaderKey]any{"crit": []string{"exp"}, "exp": 1})), want: invalid},
		{name: "jku to the attacker's keys", cred: bearer(signWith(t, jose.RS256, attacker, "rsa-1", good,
			map[jose.HeaderKey]any{"jku": fetched.URL + "/jwks"})), want: invalid},
		{name: "x5u to the attacker's certificate", cred: bearer(signWith(t, jose.RS256, attacker, "rsa-1", good,
			map[jose.HeaderKey]any{"x5u": fetched.URL + "/cert"})), want: invalid},
		{name: "jku on a good token is ignored", cred: bearer(signWith(t, jose.RS256, k.rsa, "rsa-1", with(good, "sub", "carol"),
			map[jose.HeaderKey]any{"jku": fetched.URL + "/jwks"})), ran: "carol"},
		{name: "an embedded jwk of the attacker", cred: bearer(signWith(t, jose.RS256, attacker, "rsa-1", good,
			map[jose.HeaderKey]any{"jwk": jwkHeader})), want: invalid},
		{name: "kid path traversal", cred: bearer(sign(t, jose.RS256, k.rsa, "../../../etc/passwd", good)), want: invalid},
		{name: "kid a URL", cred: bearer(sign(t, jose.RS256, k.rsa, fetched.URL+"/key", good)), want: invalid},
		{name: "exp a float", cred: bearer(rsaToken(t, with(good, "exp", float64(now.Add(time.Hour).Unix())+0.5, "sub", "dave"))), ran: "dave"},
		{name: "exp huge", cred: bearer(rsaToken(t, with(good, "exp", 1e300))), want: invalid},
		{name: "exp past 2^53", cred: bearer(rsaToken(t, with(good, "exp", int64(1)<<60))), want: invalid},
		{name: "exp negative", cred: bearer(rsaToken(t, with(good, "exp", -1))), want: invalid},
		{name: "exp a boolean", cred: bearer(rsaToken(t, with(good, "exp", true))), want: invalid},
		{name: "exp an array", cred: bearer(rsaToken(t, with(good, "exp", []any{now.Add(time.Hour).Unix()}))), want: invalid},
		{name: "nbf far in the future", cred: bearer(rsaToken(t, with(good, "nbf", now.AddDate(10, 0, 0).Unix()))), want: refusedWith("the token is not yet valid")},
		{name: "nbf a string", cred: bearer(rsaToken(t, with(good, "nbf", "0"))), want: invalid},
		{name: "iat far in the future", cred: bearer(rsaToken(t, with(good, "iat", now.AddDate(10, 0, 0).Unix()))), want: invalid},
		{name: "iat NaN-like huge", cred: bearer(rsaToken(t, with(good, "iat", math.MaxFloat64))), want: invalid},
		{name: "audience array holding this resource", cred: bearer(rsaToken(t, with(good, "aud", []any{"https://api.example", testResource}, "sub", "erin"))), ran: "erin"},
		{name: "audience array without it", cred: bearer(rsaToken(t, with(good, "aud", []any{"https://api.example", "https://mcp.example.com"}))), want: invalid},
		{name: "audience empty array", cred: bearer(rsaToken(t, with(good, "aud", []any{}))), want: invalid},
		{name: "audience nested array", cred: bearer(rsaToken(t, with(good, "aud", []any{[]any{testResource}}))), want: invalid},
		{name: "audience a prefix of this resource", cred: bearer(rsaToken(t, with(good, "aud", "https://mcp.example.com"))), want: invalid},
		{name: "audience with this resource as a prefix", cred: bearer(rsaToken(t, with(good, "aud", testResource+"/admin"))), want: invalid},
		{name: "sub a number", cred: bearer(rsaToken(t, with(good, "sub", 42))), want: invalid},
		{name: "iss with a trailing slash", cred: bearer(rsaToken(t, with(good, "iss", testIssuer+"/"))), want: invalid},
	}
	session := initialize(t, p.url, "X-API-Key", adminKey)
	for _, era := range []string{"modern", "legacy"} {
		for _, tt := range tests {
			t.Run(era+"/"+tt.name, func(t *testing.T) {
				before := p.ran.Load()
				var got answer
				if era == "modern" {
					got = modernCall(t, p.url, "echo", "", tt.cred...)
				} else {
					got = legacyCall(t, p.url, session, "echo", tt.cred...)
				}
				switch {
				case tt.ran == "":
					if got != tt.want {
						t.Errorf("got  %+v\nwant %+v", got, tt.want)
					}
					if n := p.ran.Load() - before; n != 0 {
						t.Errorf("the tool ran %d times", n)
					}
				case era == "legacy":
					// The session was opened by the API key's principal.
					if got.status != http.StatusNotFound {
						t.Errorf("another principal on the session: %+v, want 404", got)
					}
				case got.status != http.StatusOK || !strings.Contains(got.body, `"text":"hello `+tt.ran+`"`):
					t.Errorf("got %+v, want the tool to greet %s", got, tt.ran)
				}
			})
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("a URL a token named was fetched %d times", n)
	}
}
