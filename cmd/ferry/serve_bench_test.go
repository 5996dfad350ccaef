package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// manyTables creates n tables like a real schema's: a key, a unique
// code, text, a number, a timestamp and a reference to the table before.
func (d *testDB) manyTables(tb testing.TB, n int) {
	tb.Helper()
	id, text, ts := "INTEGER PRIMARY KEY", "TEXT", "TIMESTAMP"
	switch d.engine {
	case "postgres":
		id = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
		ts = "TIMESTAMPTZ"
	case "mysql":
		id, text = "BIGINT AUTO_INCREMENT PRIMARY KEY", "VARCHAR(100)"
	}
	var stmts []string
	for i := range n {
		ref := ""
		if i > 0 {
			ref = fmt.Sprintf(", parent_id BIGINT REFERENCES t%03d(id)", i-1)
		}
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE t%03d (id %s, code %s NOT NULL UNIQUE, name %s, amount DECIMAL(12,2), created_at %s%s)", i, id, text, text, ts, ref))
	}
	if d.engine == "sqlite" {
		stmts = []string{"BEGIN", strings.Join(stmts, ";\n"), "COMMIT"}
	}
	for _, s := range stmts {
		if _, err := d.db.Exec(s); err != nil {
			tb.Fatalf("%.80s: %v", s, err)
		}
	}
}

// BenchmarkServeStartup200Tables measures ferry serve's start-up on a
// 200-table database: connecting, introspecting, finding search indexes,
// registering 400 read tools and checking the server (every entity's
// probe query included), all that happens before it listens.
func BenchmarkServeStartup200Tables(b *testing.B) {
	for _, eng := range []struct {
		name string
		open func(testing.TB) *testDB
	}{{"sqlite", sqliteTestDB}, {"postgres", postgresTestDB}} {
		b.Run(eng.name, func(b *testing.B) {
			d := eng.open(b)
			d.manyTables(b, 200)
			s := &server{
				cfg: &serveConfig{db: d.url},
				env: &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: envFunc(nil)},
				log: slog.New(slog.DiscardHandler),
			}
			for b.Loop() {
				srv, db, err := s.build(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if n := len(srv.Catalog().Tools()); n != 400 {
					b.Fatalf("%d tools; want 400", n)
				}
				db()
			}
		})
	}
}
