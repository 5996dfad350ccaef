package ferry

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
)

// keyring signs and verifies tokens (stateless session ids, request state)
// with HMAC-SHA256. The first key signs; every key verifies.
type keyring struct {
	keys [][]byte
}

func newKeyring(keys [][]byte) *keyring {
	k := &keyring{}
	for _, key := range keys {
		if len(key) > 0 {
			k.keys = append(k.keys, append([]byte(nil), key...))
		}
	}
	if len(k.keys) == 0 {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		k.keys = [][]byte{key}
	}
	return k
}

var errBadSignature = errors.New("ferry: bad signature")

// sign returns payload and its MAC as "<base64url payload>.<base64url mac>",
// the MAC taken over purpose and payload so that a token made for one use
// cannot be replayed as another.
func (k *keyring) sign(purpose string, payload []byte) string {
	var sb strings.Builder
	enc := base64.RawURLEncoding
	sb.Grow(enc.EncodedLen(len(payload)) + 1 + enc.EncodedLen(sha256.Size))
	sb.WriteString(enc.EncodeToString(payload))
	sb.WriteByte('.')
	sb.WriteString(enc.EncodeToString(mac(k.keys[0], purpose, payload)))
	return sb.String()
}

// verify checks a token made by sign with any key and returns its payload.
func (k *keyring) verify(purpose, token string) ([]byte, error) {
	p, s, ok := strings.Cut(token, ".")
	if !ok {
		return nil, errBadSignature
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	sig, err2 := base64.RawURLEncoding.DecodeString(s)
	if err1 != nil || err2 != nil {
		return nil, errBadSignature
	}
	for _, key := range k.keys {
		if hmac.Equal(sig, mac(key, purpose, payload)) {
			return payload, nil
		}
	}
	return nil, errBadSignature
}

func mac(key []byte, purpose string, payload []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write(payload)
	return h.Sum(nil)
}
