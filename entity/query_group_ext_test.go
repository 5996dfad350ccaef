package entity_test

import (
	"slices"
	"testing"

	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// A query's tool is in its Query.Groups; without them, in the Set's
// groups; without those, in none (not the entity package's, which the
// package rule would give every query).
func TestQueryGroups(t *testing.T) {
	db := dbtest.SQLite(t)
	execAll(t, db, productDDL["sqlite"]...)
	text := "-- name: own :one\n-- @groups products reports\nSELECT COUNT(*) AS n FROM categories\n" +
		"-- name: none :one\n-- @groups\nSELECT COUNT(*) AS n FROM categories\n" +
		"-- name: plain :one\nSELECT COUNT(*) AS n FROM categories\n"
	groupsOf := func(opts *entity.SetOptions) map[string][]string {
		t.Helper()
		srv := quiet()
		set, err := entity.NewSet(srv, db, opts)
		if err != nil {
			t.Fatal(err)
		}
		qs, err := entity.ParseQueries("q.sql", text)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if err := set.AddQuery(t.Context(), q); err != nil {
				t.Fatal(err)
			}
		}
		if err := srv.Check(); err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for _, tl := range srv.Catalog().Tools() {
			out[tl.Name] = tl.Groups
		}
		return out
	}
	for _, tt := range []struct {
		opts *entity.SetOptions
		want map[string][]string
	}{
		{nil, map[string][]string{"own": {"products", "reports"}, "none": {}, "plain": {}}},
		{&entity.SetOptions{Groups: []string{"sales"}}, map[string][]string{"own": {"products", "reports"}, "none": {}, "plain": {"sales"}}},
	} {
		got := groupsOf(tt.opts)
		for name, w := range tt.want {
			if g, ok := got[name]; !ok || g == nil || !slices.Equal(g, w) {
				t.Errorf("set %+v: query %s: groups %q, want %q", tt.opts, name, g, w)
			}
		}
	}
}
