package entity_test

import (
	"database/sql"
	"testing"

	"github.com/ferry-mcp/ferry/entity"
)

// introspected serves every table of db, read from the database, with
// write tools.
func introspected(t *testing.T, db *sql.DB) (*client, []*entity.Entity) {
	t.Helper()
	srv := quiet()
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	es, err := entity.Introspect(t.Context(), db, set.Engine(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var served []*entity.Entity
	for _, e := range es {
		s, err := set.Add(e, nil)
		if err != nil {
			t.Fatal(err)
		}
		served = append(served, s)
	}
	set.AddResources("shop")
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	return serve(t, srv), served
}

// execAll runs DDL and fixture statements, failing the test on the first
// error.
func execAll(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
