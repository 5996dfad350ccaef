package toolname

import (
	"strings"
	"testing"
)

func TestSnakeCase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"FindBooks", "find_books"},
		{"GetHTTPStatus", "get_http_status"},
		{"ID", "id"},
		{"LendBook2", "lend_book2"},
		{"URLFor", "url_for"},
		{"simple", "simple"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SnakeCase(tt.in); got != tt.want {
			t.Errorf("SnakeCase(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSnakeCaseOfAnExportedIdentifierIsAValidName(t *testing.T) {
	for _, in := range []string{"FindBooks", "GetHTTPStatus", "X", "A1B2"} {
		if err := Check(SnakeCase(in)); err != nil {
			t.Errorf("Check(SnakeCase(%q)) = %v", in, err)
		}
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name, want string // want is part of the error, or "" for none
	}{
		{"search_orders", ""},
		{"a.b-c_D9", ""},
		{strings.Repeat("x", MaxLen), ""},
		{"", "has no name"},
		{strings.Repeat("x", MaxLen+1), "name is 129 characters; at most 128"},
		{"order items", `name has ' '`},
		{"café", `name has 'é'`},
	}
	for _, tt := range tests {
		err := Check(tt.name)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Check(%q) = %v, want it to say %q", tt.name, err, tt.want)
		}
	}
}

func TestCheckEdges(t *testing.T) {
	for _, ok := range []string{"a", "get_order", "orders.v2-list", "A9", strings.Repeat("a", 128)} {
		if err := Check(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "get order", "ordér", "a/b", strings.Repeat("a", 129), "a:b"} {
		if Check(bad) == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}
