package auth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// The identities of the test authorization server.
const (
	testIssuer   = "https://login.example.com"
	testResource = "https://mcp.example.com/mcp"
	testMetadata = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
)

// testKeys are generated once per test binary: RSA key generation is slow.
var testKeys = sync.OnceValue(func() (k struct {
	rsa, rsa2, other *rsa.PrivateKey
	ec               *ecdsa.PrivateKey
}) {
	var err error
	for _, p := range []**rsa.PrivateKey{&k.rsa, &k.rsa2, &k.other} {
		if *p, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
	}
	if k.ec, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		panic(err)
	}
	return k
})

// jwksServer serves the test issuer's JWKS on loopback and counts its
// fetches. Its mode makes it fail the ways a real one does.
type jwksServer struct {
	*httptest.Server
	fetches atomic.Int64
	mode    atomic.Value  // string: "", "down", "slow", "huge", "garbage"
	slow    chan struct{} // closed to release slow responses
	maxAge  atomic.Value  // string: a Cache-Control value
	body    atomic.Value  // []byte
}

// newJWKS serves the public halves of the RSA key "rsa-1" (alg RS256)
// and the EC key "ec-1" (alg ES256).
func newJWKS(t *testing.T) *jwksServer {
	t.Helper()
	k := testKeys()
	s := &jwksServer{slow: make(chan struct{})}
	s.setKeys(t,
		jose.JSONWebKey{Key: &k.rsa.PublicKey, KeyID: "rsa-1", Algorithm: "RS256", Use: "sig"},
		jose.JSONWebKey{Key: &k.ec.PublicKey, KeyID: "ec-1", Algorithm: "ES256", Use: "sig"})
	s.mode.Store("")
	s.maxAge.Store("")
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		select {
		case <-s.slow:
		default:
			close(s.slow)
		}
		s.Close()
	})
	return s
}

func (s *jwksServer) setKeys(t *testing.T, keys ...jose.JSONWebKey) {
	t.Helper()
	b, err := json.Marshal(jose.JSONWebKeySet{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	s.body.Store(b)
}

func (s *jwksServer) serve(w http.ResponseWriter, r *http.Request) {
	s.fetches.Add(1)
	if cc := s.maxAge.Load().(string); cc != "" {
		w.Header().Set("Cache-Control", cc)
	}
	switch s.mode.Load().(string) {
	case "down":
		http.Error(w, "down", http.StatusInternalServerError)
		return
	case "slow":
		select {
		case <-s.slow:
		case <-r.Context().Done():
		}
		return
	case "huge":
		// The good set followed by 10 MiB of whitespace: a JWKS whose
		// only fault is its size, streamed (no Content-Length), and
		// still valid JSON when cut at any length past the set, so only
		// the size check refuses it.
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.body.Load().([]byte))
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for range (10 << 20) / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		return
	case "garbage":
		_, _ = w.Write([]byte(`<html>not a jwks</html>`))
		return
	}
	w.Header().Set("Content-Type", "application/jwk-set+json")
	_, _ = w.Write(s.body.Load().([]byte))
}

// claims returns a valid claim set for subject, valid for an hour.
func claims(subject string, scopes ...string) map[string]any {
	now := time.Now()
	return map[string]any{
		"iss":   testIssuer,
		"aud":   testResource,
		"sub":   subject,
		"iat":   now.Unix(),
		"nbf":   now.Unix(),
		"exp":   now.Add(time.Hour).Unix(),
		"scope": strings.Join(scopes, " "),
	}
}

// sign returns a compact JWS of c signed with key under alg and kid,
// with typ at+jwt.
func sign(t testing.TB, alg jose.SignatureAlgorithm, key any, kid string, c map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("at+jwt")
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

// rsaToken signs c with the issuer's RSA key "rsa-1".
func rsaToken(t testing.TB, c map[string]any) string {
	return sign(t, jose.RS256, testKeys().rsa, "rsa-1", c)
}

// unsigned returns the "alg":"none" token of c.
func unsigned(t *testing.T, kid string, c map[string]any) string {
	t.Helper()
	head, _ := json.Marshal(map[string]string{"alg": "none", "typ": "at+jwt", "kid": kid})
	body, _ := json.Marshal(c)
	enc := base64.RawURLEncoding.EncodeToString
	return enc(head) + "." + enc(body) + "."
}

// hmacWithPublicKey returns c "signed" with HS256, the RSA public key's
// PEM as the secret: the algorithm confusion attack on verifiers that
// pass the key set's key to whatever alg the token names.
func hmacWithPublicKey(t *testing.T, c map[string]any) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(&testKeys().rsa.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	return sign(t, jose.HS256, secret, "rsa-1", c)
}

// with returns a copy of c with the changes; a nil value deletes.
func with(c map[string]any, kv ...any) map[string]any {
	out := make(map[string]any, len(c))
	for k, v := range c {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

var base64URL = base64.RawURLEncoding
