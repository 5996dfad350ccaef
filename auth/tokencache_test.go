package auth

import (
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// A remembered token is refused once it expires, as one verified again
// would be; the cache holds at most its size.
func TestTokenCacheRechecksTimes(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := NewStaticKeySet(Key{ID: "k", Public: &key.PublicKey})
	j, err := NewJWT(&JWTOptions{Keys: keys, Issuer: "i", Audiences: []string{"a"}, TokenCacheSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	j.leeway = time.Millisecond // white-box: the smallest leeway NewJWT allows is much longer
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: "k"}}, nil)
	token := func(sub string, exp time.Time) string {
		s, err := jwt.Signed(signer).Claims(map[string]any{"iss": "i", "aud": "a", "sub": sub, "exp": exp.Unix()}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	call := func(tok string) error {
		r := httptest.NewRequest("POST", "/", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		_, err := j.Authenticate(r)
		return err
	}
	// exp is in whole seconds: two to three seconds ahead, so that a
	// loaded machine cannot reach it before the fresh checks below.
	exp := time.Unix(time.Now().Unix()+3, 0)
	short := token("short", exp)
	for range 2 {
		if err := call(short); err != nil {
			t.Fatalf("a fresh token: %v", err)
		}
	}
	for _, sub := range []string{"a", "b", "c"} {
		if err := call(token(sub, time.Now().Add(time.Hour))); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(j.cache.m); n > 2 {
		t.Errorf("the cache holds %d tokens, more than its size 2", n)
	}
	j.cache.put(sum(short), mustVerify(t, j, short))
	time.Sleep(time.Until(exp) + 50*time.Millisecond)
	var bad *InvalidCredentialError
	if err := call(short); !errors.As(err, &bad) || bad.Reason != reasonTokenExpired {
		t.Fatalf("a remembered token past its exp: %v, want %q", err, reasonTokenExpired)
	}
	if j.cache.get(sum(short)) != nil {
		t.Error("the expired token is still remembered")
	}
}

func mustVerify(t *testing.T, j *JWT, tok string) *verified {
	t.Helper()
	v, err := j.verify(t.Context(), tok)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
