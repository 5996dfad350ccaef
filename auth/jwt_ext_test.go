package auth_test

import (
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
)

// staticJWT verifies with the issuer's RSA and EC keys, held statically.
func staticJWT(t testing.TB, opts auth.JWTOptions) *auth.JWT {
	t.Helper()
	k := testKeys()
	keys, err := auth.NewStaticKeySet(
		auth.Key{ID: "rsa-1", Algorithm: "RS256", Public: &k.rsa.PublicKey},
		auth.Key{ID: "ec-1", Public: &k.ec.PublicKey})
	if err != nil {
		t.Fatal(err)
	}
	opts.Keys, opts.Issuer = keys, testIssuer
	if opts.Audiences == nil {
		opts.Audiences = []string{testResource}
	}
	j, err := auth.NewJWT(&opts)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func authenticate(a auth.Authenticator, tok string) (*ferry.Principal, error) {
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	return a.Authenticate(r)
}

// The principal holds what the token says: subject, issuer, scopes from scope or
// scp, roles from the configured claim, expiry, and every claim.
func TestJWTPrincipal(t *testing.T) {
	exp := time.Now().Add(time.Hour).Truncate(time.Second)
	base := with(claims("alice"), "exp", exp.Unix(), "scope", nil)
	tests := []struct {
		name       string
		rolesClaim string
		claims     map[string]any
		scopes     []string
		roles      []string
	}{
		{"scope string", "", with(base, "scope", "a  b", "roles", []any{"admin", 7, "clerk"}), []string{"a", "b"}, []string{"admin", "clerk"}},
		{"scp array", "", with(base, "scp", []any{"a", "b"}, "roles", "admin"), []string{"a", "b"}, []string{"admin"}},
		{"scp string", "", with(base, "scp", "a b"), []string{"a", "b"}, nil},
		{"scope wins over scp", "", with(base, "scope", "a", "scp", []any{"b"}), []string{"a"}, nil},
		{"nested roles", "realm_access.roles", with(base, "realm_access", map[string]any{"roles": []any{"ops"}}), nil, []string{"ops"}},
		{"no scopes", "", base, nil, nil},
	}
	for _, tt := range tests {
		j := staticJWT(t, auth.JWTOptions{RolesClaim: tt.rolesClaim})
		p, err := authenticate(j, rsaToken(t, tt.claims))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		want := &ferry.Principal{Subject: "alice", Issuer: testIssuer, Scopes: tt.scopes, Roles: tt.roles, Expires: exp}
		if diff := cmp.Diff(want, p, cmpopts.IgnoreFields(ferry.Principal{}, "Claims"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: principal (-want +got):\n%s", tt.name, diff)
		}
		if p.Claims["iss"] != testIssuer {
			t.Errorf("%s: Claims = %v, want the claim set", tt.name, p.Claims)
		}
	}
}

// What the JWT authenticator refuses beyond the attack suite, and what it
// leaves to the next authenticator.
func TestJWTRefusals(t *testing.T) {
	k := testKeys()
	good := claims("alice")
	idToken := func() string {
		signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k.rsa, KeyID: "rsa-1"}}, (&jose.SignerOptions{}).WithType("JWT"))
		obj, _ := signer.Sign([]byte(`{"iss":"` + testIssuer + `","aud":"` + testResource + `","sub":"alice","exp":` + itoa(time.Now().Add(time.Hour).Unix()) + `}`))
		s, _ := obj.CompactSerialize()
		return s
	}()
	tests := []struct {
		name   string
		opts   auth.JWTOptions
		tok    string
		reason string // "" means accepted; "-" means not a JWT credential
	}{
		{"issued in the future", auth.JWTOptions{}, rsaToken(t, with(good, "iat", time.Now().Add(time.Hour).Unix())), "the token is invalid"},
		{"sub not a string", auth.JWTOptions{}, rsaToken(t, with(good, "sub", 7)), "the token is invalid"},
		{"scope not a string", auth.JWTOptions{}, rsaToken(t, with(good, "scope", []any{"a"})), "the token is invalid"},
		{"ID token where at+jwt is required", auth.JWTOptions{RequireType: true}, idToken, "the token is invalid"},
		{"at+jwt where required", auth.JWTOptions{RequireType: true}, rsaToken(t, good), ""},
		{"ID token, type not required", auth.JWTOptions{}, idToken, ""},
		{"ES256 not allowed", auth.JWTOptions{Algorithms: []string{"RS256"}}, sign(t, "ES256", k.ec, "ec-1", good), "the token is invalid"},
		{"a wider leeway", auth.JWTOptions{Leeway: 5 * time.Minute}, rsaToken(t, with(good, "exp", time.Now().Add(-4*time.Minute).Unix())), ""},
		{"expired, default leeway", auth.JWTOptions{}, rsaToken(t, with(good, "exp", time.Now().Add(-31*time.Second).Unix())), "the token has expired"},
		{"audience in upper case", auth.JWTOptions{}, rsaToken(t, with(good, "aud", "HTTPS://MCP.EXAMPLE.COM/mcp")), ""},
		{"audience path in upper case", auth.JWTOptions{}, rsaToken(t, with(good, "aud", "https://mcp.example.com/MCP")), "the token is invalid"},
		{"an API identifier audience", auth.JWTOptions{Audiences: []string{"orders-api"}}, rsaToken(t, with(good, "aud", "orders-api")), ""},
		{"PS256 with a key whose alg is RS256", auth.JWTOptions{Algorithms: []string{"RS256", "PS256"}}, sign(t, "PS256", k.rsa, "rsa-1", good), "the token is invalid"},
		{"no kid, several keys", auth.JWTOptions{}, sign(t, "RS256", k.rsa, "", good), "the token is invalid"},
		{"JWS JSON serialization", auth.JWTOptions{}, `{"payload":"e30","signatures":[]}`, "the Authorization header is malformed"},
		{"not three parts", auth.JWTOptions{}, "abc.def", "-"},
	}
	for _, tt := range tests {
		_, err := authenticate(staticJWT(t, tt.opts), tt.tok)
		var bad *auth.InvalidCredentialError
		switch {
		case tt.reason == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.name, err)
		case tt.reason == "-" && !errors.Is(err, auth.ErrNoCredential):
			t.Errorf("%s: %v, want ErrNoCredential", tt.name, err)
		case tt.reason != "" && tt.reason != "-" && (!errors.As(err, &bad) || bad.Reason != tt.reason):
			t.Errorf("%s: %v, want the reason %q", tt.name, err, tt.reason)
		}
	}
}

func TestNewJWTRefusesBadOptions(t *testing.T) {
	keys, _ := auth.NewStaticKeySet(auth.Key{ID: "a", Public: &testKeys().rsa.PublicKey})
	tests := []struct {
		name string
		opts *auth.JWTOptions
		want string
	}{
		{"nil", nil, "auth: a JWT authenticator needs Keys, an Issuer and Audiences"},
		{"no audience", &auth.JWTOptions{Keys: keys, Issuer: testIssuer}, "auth: a JWT authenticator needs Keys, an Issuer and Audiences"},
		{"HS256", &auth.JWTOptions{Keys: keys, Issuer: testIssuer, Audiences: []string{testResource}, Algorithms: []string{"HS256"}},
			`auth: "HS256" is not an asymmetric signature algorithm this package accepts`},
		{"none", &auth.JWTOptions{Keys: keys, Issuer: testIssuer, Audiences: []string{testResource}, Algorithms: []string{"none"}},
			`auth: "none" is not an asymmetric signature algorithm this package accepts`},
	}
	for _, tt := range tests {
		if _, err := auth.NewJWT(tt.opts); err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// A key set takes no symmetric key, no small RSA key, no key whose alg
// its type cannot verify; a JWKS keeps only its usable signing keys.
func TestKeySetsRefuseUnfitKeys(t *testing.T) {
	k := testKeys()
	for _, key := range []auth.Key{
		{ID: "hmac", Public: []byte(strings.Repeat("s", 32))},
		{ID: "rsa-as-es", Algorithm: "ES256", Public: &k.rsa.PublicKey},
		{ID: "hs", Algorithm: "HS256", Public: &k.rsa.PublicKey},
		{ID: "none", Public: nil},
	} {
		if _, err := auth.NewStaticKeySet(key); err == nil {
			t.Errorf("NewStaticKeySet(%s) accepted it", key.ID)
		}
	}
	jwks := `{"keys":[{"kty":"oct","kid":"h","k":"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"},` +
		`{"kty":"OKP","crv":"X25519","kid":"x","x":"AAAA"},` + jwk(t, k.ec, "enc-1", "enc") + `,` + jwk(t, k.ec, "sig-1", "sig") + `]}`
	set, err := auth.ParseKeySet([]byte(jwks))
	if err != nil {
		t.Fatal(err)
	}
	for kid, want := range map[string]bool{"h": false, "x": false, "enc-1": false, "sig-1": true} {
		if _, err := set.Key(t.Context(), kid, map[bool]string{true: "ES256", false: "HS256"}[want]); (err == nil) != want {
			t.Errorf("key %s: err %v, want found %v", kid, err, want)
		}
	}
	if _, err := auth.ParseKeySet([]byte(`{"keys":[` + strings.Repeat(jwk(t, k.ec, "e", "sig")+",", auth.MaxKeys) + jwk(t, k.ec, "e", "sig") + `]}`)); err == nil {
		t.Error("a JWKS of more than MaxKeys keys was accepted")
	}
}

func jwk(t *testing.T, key any, kid, use string) string {
	t.Helper()
	pub := jose.JSONWebKey{Key: key, KeyID: kid, Use: use}
	b, err := pub.Public().MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Whatever the token, the JWT authenticator accepts only what the issuer
// signed: a mutation of a signed token that passes (base64 has spare
// bits) says what the issuer's did, and nothing panics.
func FuzzJWTAuthenticate(f *testing.F) {
	j := staticJWT(f, auth.JWTOptions{})
	tok := rsaToken(f, claims("alice"))
	f.Add(tok)
	f.Add(sign(f, "ES256", testKeys().ec, "ec-1", claims("bob")))
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := authenticate(j, s)
		if err != nil {
			return
		}
		if p == nil || (p.Subject != "alice" && p.Subject != "bob") || p.Claims["iss"] != testIssuer {
			t.Fatalf("accepted %q as %+v", s, p)
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
