package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
)

// MinRSABits is the smallest RSA modulus a key set accepts.
const MinRSABits = 2048

// MaxKeys bounds the keys of a key set; a JWKS with more is refused.
const MaxKeys = 100

// ErrUnknownKey is returned by a [KeySet] that has no key of the given id
// fit for the given algorithm. A token signed with such a key is refused.
var ErrUnknownKey = errors.New("auth: unknown signing key")

// Key is a public key that verifies token signatures.
type Key struct {
	// ID is the key's id (a JWK's kid), which a token names in its
	// header. A token without kid is verified with a set's only key.
	ID string
	// Algorithm, if set (a JWK's alg), is the only algorithm the key
	// verifies: a token signed with another is refused. If empty, any
	// allowed algorithm that fits the key's type.
	Algorithm string
	// Public is an *rsa.PublicKey (of at least [MinRSABits]), an
	// *ecdsa.PublicKey on P-256, P-384 or P-521, or an ed25519.PublicKey.
	// Symmetric (HMAC) keys are not keys here: a verifier that holds a
	// shared secret can forge what it verifies.
	Public crypto.PublicKey
}

// KeySet gives the keys that verify tokens. Key returns the key named
// kid that fits alg, [ErrUnknownKey] (or an error wrapping it) when there
// is none, and another error when it cannot tell (a JWKS never fetched).
// Key is called concurrently.
type KeySet interface {
	Key(ctx context.Context, kid, alg string) (Key, error)
}

// StaticKeySet is a [KeySet] of fixed keys, safe for concurrent use.
type StaticKeySet struct {
	keys []Key
}

// NewStaticKeySet returns a set of the keys, checked as [Key] says. It
// returns an error for a key of another type, too small, or of an
// algorithm its type cannot verify.
func NewStaticKeySet(keys ...Key) (*StaticKeySet, error) {
	if len(keys) == 0 || len(keys) > MaxKeys {
		return nil, fmt.Errorf("auth: a key set needs 1 to %d keys, not %d", MaxKeys, len(keys))
	}
	for _, k := range keys {
		if err := checkKeyType(k); err != nil {
			return nil, err
		}
	}
	return &StaticKeySet{keys: append([]Key(nil), keys...)}, nil
}

// ParseKeySet returns the signing keys of a JWKS document (RFC 7517).
// Keys the set cannot use are skipped: those whose use is not "sig",
// symmetric ones, those of an unknown type or too small. It returns an
// error for a document that is not a JWKS, has more than [MaxKeys] keys,
// or no usable key.
func ParseKeySet(jwks []byte) (*StaticKeySet, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(jwks, &doc); err != nil {
		if _, wrongType := errors.AsType[*json.UnmarshalTypeError](err); wrongType {
			return nil, errors.New(`auth: a JWKS is not a JSON object with a "keys" array`)
		}
		return nil, fmt.Errorf("auth: parsing a JWKS: %w", err)
	}
	if len(doc.Keys) > MaxKeys {
		return nil, fmt.Errorf("auth: a JWKS of %d keys, more than %d", len(doc.Keys), MaxKeys)
	}
	var keys []Key
	for _, raw := range doc.Keys {
		var jwk jose.JSONWebKey
		if err := jwk.UnmarshalJSON(raw); err != nil || (jwk.Use != "" && jwk.Use != "sig") {
			continue
		}
		if !jwk.IsPublic() {
			jwk = jwk.Public()
		}
		k := Key{ID: jwk.KeyID, Algorithm: jwk.Algorithm, Public: jwk.Key}
		if checkKeyType(k) == nil {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("auth: a JWKS without a usable signing key")
	}
	return &StaticKeySet{keys: keys}, nil
}

// Key implements [KeySet].
func (s *StaticKeySet) Key(_ context.Context, kid, alg string) (Key, error) {
	k, known := s.find(kid, alg)
	if k.Public != nil {
		return k, nil
	}
	if known {
		return Key{}, fmt.Errorf("%w: key %q does not verify %s", ErrUnknownKey, kid, alg)
	}
	return Key{}, fmt.Errorf("%w: %q", ErrUnknownKey, kid)
}

// find returns the key named kid that fits alg, and whether a key of
// that id exists at all. A kid of "" names the set's only key.
func (s *StaticKeySet) find(kid, alg string) (Key, bool) {
	known := false
	if kid == "" && len(s.keys) != 1 {
		return Key{}, false
	}
	for _, k := range s.keys {
		if k.ID != kid && kid != "" {
			continue
		}
		known = true
		if (k.Algorithm == "" || k.Algorithm == alg) && fits(alg, k.Public) {
			return k, true
		}
	}
	return Key{}, known
}

// checkKeyType checks k as [Key] says.
func checkKeyType(k Key) error {
	if k.Algorithm != "" {
		if _, ok := asymmetric[k.Algorithm]; !ok {
			return fmt.Errorf("auth: key %q: algorithm %q is not an asymmetric signature algorithm", k.ID, k.Algorithm)
		}
		if !fits(k.Algorithm, k.Public) {
			return fmt.Errorf("auth: key %q: a %T does not verify %s", k.ID, k.Public, k.Algorithm)
		}
	}
	switch pub := k.Public.(type) {
	case *rsa.PublicKey:
		if pub.N == nil || pub.N.BitLen() < MinRSABits {
			return fmt.Errorf("auth: key %q: an RSA key of fewer than %d bits", k.ID, MinRSABits)
		}
	case *ecdsa.PublicKey:
		if curveAlg(pub.Curve) == "" {
			return fmt.Errorf("auth: key %q: an ECDSA key on an unsupported curve", k.ID)
		}
	case ed25519.PublicKey:
		if len(pub) != ed25519.PublicKeySize {
			return fmt.Errorf("auth: key %q: an Ed25519 key of the wrong size", k.ID)
		}
	default:
		return fmt.Errorf("auth: key %q: a %T is not a public key this package verifies with", k.ID, k.Public)
	}
	return nil
}

// asymmetric maps the signature algorithms a token may use to their
// go-jose names. HMAC algorithms and "none" are not here, so they cannot
// be allowed.
var asymmetric = map[string]jose.SignatureAlgorithm{
	"RS256": jose.RS256, "RS384": jose.RS384, "RS512": jose.RS512,
	"PS256": jose.PS256, "PS384": jose.PS384, "PS512": jose.PS512,
	"ES256": jose.ES256, "ES384": jose.ES384, "ES512": jose.ES512,
	"EdDSA": jose.EdDSA,
}

// fits reports whether pub can verify a signature of alg.
func fits(alg string, pub crypto.PublicKey) bool {
	switch pub := pub.(type) {
	case *rsa.PublicKey:
		switch alg {
		case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512":
			return true
		}
	case *ecdsa.PublicKey:
		return alg == curveAlg(pub.Curve)
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}

// curveAlg returns the one ECDSA algorithm of a curve (RFC 7518 §3.4).
func curveAlg(c elliptic.Curve) string {
	switch c {
	case elliptic.P256():
		return "ES256"
	case elliptic.P384():
		return "ES384"
	case elliptic.P521():
		return "ES512"
	}
	return ""
}
