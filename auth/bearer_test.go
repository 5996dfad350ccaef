package auth

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

func TestBearerToken(t *testing.T) {
	tests := []struct {
		name   string
		header []string
		want   string
		err    error
	}{
		{"none", nil, "", ErrNoCredential},
		{"bearer", []string{"Bearer abc.DEF-_~+/=="}, "abc.DEF-_~+/==", nil},
		{"lower-case scheme, two spaces", []string{"bearer  tok"}, "tok", nil},
		{"other scheme", []string{"Basic YWxhZGRpbjpvcGVuc2VzYW1l"}, "", ErrNoCredential},
		{"scheme only", []string{"Bearer"}, "", ErrInvalidCredential},
		{"empty token", []string{"Bearer "}, "", ErrInvalidCredential},
		{"padding only", []string{"Bearer =="}, "", ErrInvalidCredential},
		{"space inside", []string{"Bearer a b"}, "", ErrInvalidCredential},
		{"quote", []string{`Bearer a"b`}, "", ErrInvalidCredential},
		{"padding inside", []string{"Bearer a=b"}, "", ErrInvalidCredential},
		{"too long", []string{"Bearer " + strings.Repeat("a", MaxTokenBytes+1)}, "", ErrInvalidCredential},
		{"longest", []string{"Bearer " + strings.Repeat("a", MaxTokenBytes)}, strings.Repeat("a", MaxTokenBytes), nil},
		{"twice", []string{"Bearer a", "Bearer a"}, "", ErrInvalidCredential},
	}
	for _, tt := range tests {
		h := http.Header{}
		for _, v := range tt.header {
			h.Add("Authorization", v)
		}
		got, err := BearerToken(h)
		if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
			t.Errorf("%s: BearerToken = %q, %v; want %q, %v", tt.name, got, err, tt.want, tt.err)
		}
	}
}

// Whatever the header, BearerToken returns a token of b64token characters
// within the size bound, or no token and one of its two errors.
func FuzzBearerToken(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer a.b.c", "Basic x", "Bearer ", "Bearer a b", "Bearer ==", "BEARER\ttok", "Bearer\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		tok, err := BearerToken(http.Header{"Authorization": {v}})
		if err != nil {
			if tok != "" || !(errors.Is(err, ErrNoCredential) || errors.Is(err, ErrInvalidCredential)) {
				t.Fatalf("BearerToken(%q) = %q, %v", v, tok, err)
			}
			return
		}
		if checkB64Token(tok) != nil || !strings.HasSuffix(v, tok) {
			t.Fatalf("BearerToken(%q) = %q, not a b64token of the header", v, tok)
		}
	})
}
