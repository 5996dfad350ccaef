package serveconfig

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAccess(t *testing.T) {
	c, err := Parse("a.yaml", []byte(`tables:
  products:
    access:
      read: {scopes: [shop.read]}
      write: {scopes: [shop.write], roles: [staff, admin]}
      delete: {roles: []}
queries:
  best_sellers: {scopes: [reports]}
  everyone: {}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := &Access{Read: Callers{Scopes: []string{"shop.read"}}, Write: Callers{Scopes: []string{"shop.write"}, Roles: []string{"staff", "admin"}},
		Delete: Callers{Roles: []string{}}}
	if d := cmp.Diff(want, c.Tables["products"].Access); d != "" {
		t.Errorf("access (-want +got):\n%s", d)
	}
	if q := c.Queries["best_sellers"]; q == nil || !cmp.Equal(q.Scopes, []string{"reports"}) || q.Name.Line != 8 {
		t.Errorf("queries: %+v", c.Queries)
	}
	if q := c.Queries["everyone"]; q == nil || len(q.Scopes)+len(q.Roles) != 0 {
		t.Errorf("queries: %+v", c.Queries)
	}
}

func TestParseAccessRefuses(t *testing.T) {
	tests := []struct{ text, want string }{
		{"tables:\n  t:\n    access:\n      read: {scope: [x]}\n", `a.yaml:4:14: unknown key "scope" in table t access read`},
		{"tables:\n  t:\n    access:\n      list: {}\n", `a.yaml:4:7: unknown key "list" in table t access`},
		{"tables:\n  t:\n    access:\n      read: {scopes: x}\n", "a.yaml:4:22: table t access read: scopes must be a list of names"},
		{"tables:\n  t:\n    access:\n      read: {roles: [\"\"]}\n", "must list names"},
		{"queries:\n  q: [x]\n", "a.yaml:2:6: query q must be a mapping"},
		{"queries:\n  q: {scopes: [a]}\n  q: {}\n", `"q" is given twice`},
	}
	for _, tt := range tests {
		if _, err := Parse("a.yaml", []byte(tt.text)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v; want %q", tt.text, err, tt.want)
		}
	}
}
