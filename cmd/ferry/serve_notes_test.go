package main

import (
	"slices"
	"strings"
	"testing"
)

// Start-up says, per table, which columns are left out and why, and why a
// table has no get tool, so that the operator need not read tool
// descriptions to learn what the clients will not see.
func TestServeStartupSaysWhatEachTableLeavesOut(t *testing.T) {
	unserved := map[string]struct{ ddl, says string }{
		"sqlite":   {"pic BLOB, raw BLOB", "pic (BLOB), raw (BLOB)"},
		"postgres": {"meta jsonb, pic bytea, days date[], grid integer[][]", "pic (bytea), days (date[]), grid (integer[])"},
		"mysql":    {"raw VARBINARY(10), flags SET('a','b')", "raw (varbinary(10)), flags (set('a','b'))"},
	}
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			u := unserved[eng.name]
			mustExec(t, d.db,
				"CREATE TABLE i21types_docs (id INTEGER PRIMARY KEY, title VARCHAR(50), "+u.ddl+")",
				"CREATE TABLE i21types_lines (order_id INTEGER NOT NULL, line INTEGER NOT NULL, PRIMARY KEY (order_id, line))",
				"CREATE TABLE i21types_visits (day VARCHAR(10), hits INTEGER)",
			)
			s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-writes"})
			stderr := s.stderr.String()
			for _, want := range []string{
				"ferry serve: i21types_docs: columns left out, their types not served: " + u.says + "\n",
				"ferry serve: i21types_lines: list only, no get tool: its primary key has 2 columns (order_id, line); get, update and delete name a record by a single-column key\n",
				"ferry serve: i21types_visits: list only, no get tool: the table has no primary key; get, update and delete name a record by a single-column key\n",
			} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}

// With -writes, a table whose hidden column is NOT NULL with no default
// gets no create tool (no insert could succeed), and start-up says why;
// read-only, there is nothing to say.
func TestServeStartupSaysWhyATableHasNoCreateTool(t *testing.T) {
	d := sqliteTestDB(t)
	mustExec(t, d.db, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, pin TEXT NOT NULL)")
	conf := writeConfig(t, "tables:\n  users:\n    hidden: [pin]\n")
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-writes", "-config", conf})
	want := "ferry serve: users: no create tool: its column pin (TEXT) is required (NOT NULL, no default) and not served; to create, serve the column or give it a default\n"
	if !strings.Contains(s.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, s.stderr.String())
	}
	if got := s.tools(t).names(); slices.Contains(got, "create_user") || !slices.Contains(got, "update_user") {
		t.Errorf("tools %v; want update_user and no create_user", got)
	}
	s = startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-config", conf})
	if strings.Contains(s.stderr.String(), "no create tool") {
		t.Errorf("read-only, start-up speaks of create:\n%s", s.stderr.String())
	}
}
