package main

import (
	"strings"
	"testing"
)

// Start-up says, per table, which columns are left out and why, and why a
// table has no get tool, so that the operator need not read tool
// descriptions to learn what the clients will not see.
func TestServeStartupSaysWhatEachTableLeavesOut(t *testing.T) {
	unserved := map[string]struct{ ddl, says string }{
		"sqlite":   {"pic BLOB, raw BLOB", "pic (BLOB), raw (BLOB)"},
		"postgres": {"meta jsonb, tags integer[]", "meta (jsonb), tags (integer[])"},
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
