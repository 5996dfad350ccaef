package bearer

import "testing"

func TestChallenge(t *testing.T) {
	for _, tt := range []struct {
		name                        string
		errorCode                   string
		scopes                      []string
		metadata, description, want string
	}{
		{"bare", "", nil, "", "", "Bearer"},
		{"scopes only", "", []string{"files:read"}, "https://m", "",
			`Bearer scope="files:read", resource_metadata="https://m"`},
		{"every parameter", "insufficient_scope", []string{"a", "", "offline_access", "b"}, "https://m", "needs a and b",
			`Bearer error="insufficient_scope", scope="a b", resource_metadata="https://m", error_description="needs a and b"`},
		{"only offline_access", "invalid_token", []string{"offline_access"}, "", "",
			`Bearer error="invalid_token"`},
		{"quoted", "invalid_token", nil, "", "a \"quote\", a \\ and\r\na line é",
			`Bearer error="invalid_token", error_description="a \"quote\", a \\ and??a line ??"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Challenge(tt.errorCode, tt.scopes, tt.metadata, tt.description); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
