package dbtest

import "testing"

func TestEngines(t *testing.T) {
	for _, e := range Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			if _, err := db.Exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("INSERT INTO t (id, name) VALUES (1, 'a')"); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 1 {
				t.Fatalf("count = %d, %v; want 1", n, err)
			}
		})
	}
}

func TestPostgresSchema(t *testing.T) {
	db := Postgres(t)
	if s := PostgresSchema(t, db); len(s) != len("ferry_")+12 {
		t.Fatalf("schema %q is not a fresh ferry_ name", s)
	}
}

func TestWithParam(t *testing.T) {
	for _, tt := range []struct{ dsn, want string }{
		{"postgres://root@h/test?sslmode=disable", "postgres://root@h/test?sslmode=disable&search_path=ferry_1"},
		{"postgres://root@h/test", "postgres://root@h/test?search_path=ferry_1"},
	} {
		if got := withParam(tt.dsn, "search_path", "ferry_1"); got != tt.want {
			t.Errorf("withParam(%q) = %q; want %q", tt.dsn, got, tt.want)
		}
	}
}
