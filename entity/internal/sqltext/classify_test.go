package sqltext

import (
	"strings"
	"testing"
)

func classify(t *testing.T, src string, d Dialect) (Class, error) {
	t.Helper()
	toks, err := Scan(src, d)
	if err != nil {
		return Class{}, err
	}
	code, err := Code(toks)
	if err != nil {
		return Class{}, err
	}
	return Classify(code)
}

func TestClassify(t *testing.T) {
	tests := []struct {
		src  string
		want Class
	}{
		{"SELECT 1", Class{Verb: "SELECT"}},
		{"select 1;", Class{Verb: "SELECT"}},
		{"(SELECT 1) UNION (SELECT 2)", Class{Verb: "SELECT"}},
		{"SELECT 'DELETE', \"update\" FROM t", Class{Verb: "SELECT"}},
		{"SELECT a FROM t LIMIT 3", Class{Verb: "SELECT", Limited: true}},
		{"SELECT a FROM (SELECT a FROM t LIMIT 3) s", Class{Verb: "SELECT"}},
		{"WITH c AS (SELECT 1) SELECT * FROM c", Class{Verb: "WITH"}},
		{"WITH c AS (DELETE FROM t) SELECT 1", Class{Verb: "WITH", Write: true, Destructive: true}},
		{"SELECT a FROM t FOR UPDATE", Class{Verb: "SELECT", Writes: []string{"UPDATE"}}},
		{"INSERT INTO t (a) VALUES (1)", Class{Verb: "INSERT", Write: true}},
		{"UPDATE t SET a = 1", Class{Verb: "UPDATE", Write: true}},
		{"DELETE FROM t", Class{Verb: "DELETE", Write: true, Destructive: true}},
		{"REPLACE INTO t VALUES (1)", Class{Verb: "REPLACE", Write: true, Destructive: true}},
		{"MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE", Class{Verb: "MERGE", Write: true, Destructive: true}},
		{"SELECT replace(a, 'x', 'y') FROM t", Class{Verb: "SELECT"}},
	}
	for _, tt := range tests {
		got, err := classify(t, tt.src, PostgreSQL)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got.Verb != tt.want.Verb || got.Write != tt.want.Write || got.Destructive != tt.want.Destructive ||
			got.Limited != tt.want.Limited || strings.Join(got.Writes, ",") != strings.Join(tt.want.Writes, ",") {
			t.Errorf("%s = %+v; want %+v", tt.src, got, tt.want)
		}
	}
}

func TestClassifyRefuses(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", "no statement"},
		{"-- only a comment", "no statement"},
		{"SELECT 1; SELECT 2", "second statement"},
		{"SELECT 1; -- x\n DELETE FROM t", "second statement"},
		{"DROP TABLE t", "DROP statements are not served"},
		{"BEGIN", "not served"},
		{"SET x = 1", "not served"},
		{"PRAGMA writable_schema = 1", "not served"},
		{"CALL p()", "not served"},
		{"SELECT a INTO b FROM t", "INTO"},
		{"DELETE FROM t RETURNING a", "RETURNING"},
		{"'x'", "does not start with a keyword"},
	}
	for _, tt := range tests {
		if _, err := classify(t, tt.src, SQLite); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v; want %q", tt.src, err, tt.want)
		}
	}
}
