package ferry

import (
	"strings"
	"testing"
)

// An error is shown as one masked line of at most maxHealthError bytes.
func TestHealthError(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"dial tcp 127.0.0.1:6379: connect: connection refused", "dial tcp 127.0.0.1:6379: connect: connection refused"},
		{"redis://user:s3cret@h:6379/0", "redis://xxxxx@h:6379/0"},
		{"postgres://u@h/db?password=s3cret&sslmode=disable", "postgres://xxxxx@h/db?password=xxxxx&sslmode=disable"},
		{`host=h password="s 3cret" user=u`, "host=h password=xxxxx user=u"},
		{"PWD: s3cret, then", "PWD: xxxxx, then"},
		{"Authorization: Bearer abc.def-ghi", "Authorization: Bearer xxxxx"},
		{"a\nb\x1b[31m\tc", "a b [31m c"},
		{"bad \xff byte", "bad ? byte"},
		{"password authentication failed for user \"u\"", "password authentication failed for user \"u\""},
	} {
		if got := healthError(tt.in); got != tt.want {
			t.Errorf("healthError(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := healthError(strings.Repeat("é", 400))
	if len(long) > maxHealthError+len("…") || !strings.HasSuffix(long, "é…") {
		t.Errorf("a long error: %d bytes, ends %q", len(long), long[len(long)-8:])
	}
}
