package auth

import (
	"errors"
	"net/http"
	"strings"
)

// MaxTokenBytes bounds a bearer token or an API key: a longer one is
// refused before it is decoded.
const MaxTokenBytes = 16 << 10

// BearerToken returns the token of a request's "Authorization: Bearer"
// header (RFC 6750 §2.1). It returns an error matching [ErrNoCredential]
// when there is no Authorization header or its scheme is not Bearer, and
// an [*InvalidCredentialError] when the header is repeated, or the token
// is empty, longer than [MaxTokenBytes] or has characters a b64token
// may not. The scheme is matched case-insensitively. Tokens are never
// taken from the query string or the body.
func BearerToken(h http.Header) (string, error) {
	values := h.Values("Authorization")
	switch len(values) {
	case 0:
		return "", ErrNoCredential
	case 1:
	default:
		return "", invalid(reasonMalformed, errors.New("more than one Authorization header"))
	}
	scheme, token, _ := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", ErrNoCredential
	}
	token = strings.TrimLeft(token, " ")
	if err := checkB64Token(token); err != nil {
		return "", invalid(reasonMalformed, err)
	}
	return token, nil
}

// checkB64Token checks token against RFC 6750's b64token:
// 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func checkB64Token(token string) error {
	if token == "" {
		return errors.New("empty bearer token")
	}
	if len(token) > MaxTokenBytes {
		return errors.New("bearer token longer than MaxTokenBytes")
	}
	body := strings.TrimRight(token, "=")
	if body == "" {
		return errors.New("bearer token of padding only")
	}
	for i := range len(body) {
		if !isTokenChar(body[i]) {
			return errors.New("bearer token has a character a b64token may not")
		}
	}
	return nil
}

func isTokenChar(c byte) bool { return tokenChars[c] }

// tokenChars holds the characters of a b64token but its padding.
var tokenChars = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/") {
		t[c] = true
	}
	return t
}()
