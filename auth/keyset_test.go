package auth

import (
	"testing"
)

// Whatever the document, ParseKeySet returns an error or a set of at most
// MaxKeys keys each fit for verification, and does not panic.
func FuzzParseKeySet(f *testing.F) {
	f.Add([]byte(`{"keys":[{"kty":"EC","crv":"P-256","kid":"e","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`))
	f.Add([]byte(`{"keys":null}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		set, err := ParseKeySet(doc)
		if err != nil {
			return
		}
		if len(set.keys) == 0 || len(set.keys) > MaxKeys {
			t.Fatalf("%d keys", len(set.keys))
		}
		for _, k := range set.keys {
			if err := checkKeyType(k); err != nil {
				t.Fatalf("an unfit key in the set: %v", err)
			}
		}
	})
}

// A document of the wrong shape is refused saying what a JWKS is, not
// naming the Go type it was decoded into.
func TestParseKeySetOfTheWrongShape(t *testing.T) {
	for _, doc := range []string{`[]`, `"keys"`, `{"keys":"x"}`, `{"keys":{}}`} {
		_, err := ParseKeySet([]byte(doc))
		if err == nil || err.Error() != `auth: a JWKS is not a JSON object with a "keys" array` {
			t.Errorf("%s: %v", doc, err)
		}
	}
}
