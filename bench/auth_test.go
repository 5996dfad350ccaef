package bench

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
	"github.com/ferry-mcp/ferry/bench/internal/wire"
)

// BenchmarkAuthToolsCall measures what authentication adds to a 2026-07-28
// tools/call through the real HTTP handler in process: "none" is the
// handler alone; "jwt_rs256" and "jwt_es256" verify a bearer JWT on every
// call (signature, claims, principal: TokenCacheSize -1), with the JWKS
// fetched once and cached; "_remembered" is the default, where a token
// verified once is remembered and only its times and key re-checked;
// "apikey" looks a key up in a StaticKeys.
func BenchmarkAuthToolsCall(b *testing.B) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &rsaKey.PublicKey, KeyID: "rsa", Algorithm: "RS256", Use: "sig"},
		{Key: &ecKey.PublicKey, KeyID: "ec", Algorithm: "ES256", Use: "sig"},
	}})
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(jwks) }))
	defer idp.Close()
	keys, err := auth.NewRemoteKeySet(idp.URL, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer keys.Close()
	if err := keys.Refresh(b.Context()); err != nil {
		b.Fatal(err)
	}
	const resource = "https://mcp.example.com/mcp"
	static, err := auth.NewStaticKeys(map[string]*ferry.Principal{"k-bench-0123456789": {Subject: "bench"}})
	if err != nil {
		b.Fatal(err)
	}
	newMiddleware := func(cacheSize int) func(http.Handler) http.Handler {
		tokens, err := auth.NewJWT(&auth.JWTOptions{Keys: keys, Issuer: "https://login.example.com", Audiences: []string{resource}, TokenCacheSize: cacheSize})
		if err != nil {
			b.Fatal(err)
		}
		return auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{tokens, auth.APIKeys(static.Lookup, nil)}})
	}
	verifying, remembering := newMiddleware(-1), newMiddleware(0)
	h := ferryImpl().Handler(false)
	payload := wire.AppendModernAddCall(nil, 2)

	b.Run("none", func(b *testing.B) { benchCall(b, h, modernHeader(), payload) })
	for _, tt := range []struct {
		name string
		alg  jose.SignatureAlgorithm
		key  any
		kid  string
	}{{"jwt_rs256", jose.RS256, rsaKey, "rsa"}, {"jwt_es256", jose.ES256, ecKey, "ec"}} {
		hdr := modernHeader()
		hdr.Set("Authorization", "Bearer "+benchToken(b, tt.alg, tt.key, tt.kid, resource))
		b.Run(tt.name, func(b *testing.B) { benchCall(b, verifying(h), hdr, payload) })
		b.Run(tt.name+"_remembered", func(b *testing.B) { benchCall(b, remembering(h), hdr, payload) })
	}
	b.Run("apikey", func(b *testing.B) {
		hdr := modernHeader()
		hdr.Set("X-API-Key", "k-bench-0123456789")
		benchCall(b, remembering(h), hdr, payload)
	})
}

func benchToken(b *testing.B, alg jose.SignatureAlgorithm, key any, kid, aud string) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, (&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	tok, err := jwt.Signed(signer).Claims(map[string]any{
		"iss": "https://login.example.com", "aud": aud, "sub": "alice", "scope": "orders:read orders:write",
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}).Serialize()
	if err != nil {
		b.Fatal(err)
	}
	return tok
}
