package auth

import (
	"strings"
	"testing"
)

func TestChallengeString(t *testing.T) {
	tests := []struct {
		c    Challenge
		want string
	}{
		{Challenge{}, "Bearer"},
		{Challenge{ResourceMetadata: "https://x/.well-known/oauth-protected-resource"}, `Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"`},
		{Challenge{Scopes: []string{"a", "offline_access", "b"}, ResourceMetadata: "u"}, `Bearer scope="a b", resource_metadata="u"`},
		{Challenge{Error: ErrorInvalidToken, ResourceMetadata: "u", Description: "the token has expired"},
			`Bearer error="invalid_token", resource_metadata="u", error_description="the token has expired"`},
		{Challenge{Error: ErrorInsufficientScope, Scopes: []string{"files:write"}, ResourceMetadata: "u", Description: "needs more"},
			`Bearer error="insufficient_scope", scope="files:write", resource_metadata="u", error_description="needs more"`},
		{Challenge{Description: "a \"quoted\" \\ \r\nInjected: yes ü"}, `Bearer error_description="a \"quoted\" \\ ??Injected: yes ??"`},
		{Challenge{Scopes: []string{"offline_access"}}, "Bearer"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("%+v:\n got %s\nwant %s", tt.c, got, tt.want)
		}
	}
}

// Whatever the values, a challenge is one header line of printable ASCII
// whose quoted strings all close: a value cannot add a parameter or a
// header.
func FuzzChallenge(f *testing.F) {
	f.Add("invalid_token", "a b", "https://x", "the token has expired")
	f.Add(`"`, `\`, "\r\n", "\x00\xff")
	f.Fuzz(func(t *testing.T, e, scope, meta, desc string) {
		got := Challenge{Error: e, Scopes: []string{scope}, ResourceMetadata: meta, Description: desc}.String()
		if !strings.HasPrefix(got, "Bearer") {
			t.Fatalf("%q does not start with Bearer", got)
		}
		quotes, escaped := 0, false
		for i := range len(got) {
			c := got[i]
			if c < 0x20 || c >= 0x7f {
				t.Fatalf("%q has byte %#x", got, c)
			}
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				quotes++
			}
		}
		params := 0
		sent := scope // the one scope, unless it is offline_access
		if scope == offlineAccess {
			sent = ""
		}
		for _, v := range []string{e, sent, meta, desc} {
			if v != "" {
				params++
			}
		}
		if quotes != 2*params || escaped {
			t.Fatalf("%q: %d quotes for %d parameters", got, quotes, params)
		}
	})
}
