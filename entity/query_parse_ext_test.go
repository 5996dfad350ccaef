package entity_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ferry-mcp/ferry/entity"
)

func TestParseQueries(t *testing.T) {
	text := `-- a file comment before the first query

-- name: top :many
-- Lists the top products.
-- Second line.
-- @title Top products
-- @param n integer minimum:"1" maximum:"50" default:"10" How many.
-- @param country text enum:"NL,BE" nullable:"true" pattern:"^[A-Z]+$" maxLength:"2" minLength:"2"
-- @column total number
-- @max_rows 20
-- @groups products reports products

SELECT name, total FROM t WHERE country = @country LIMIT @n;
-- name: zap :exec
DELETE FROM t
`
	qs, err := entity.ParseQueries("f.sql", text)
	if err != nil {
		t.Fatal(err)
	}
	one, two, fifty, ten := 1.0, 2, 50.0, json.RawMessage("10")
	want := []*entity.Query{
		{Name: "top", Mode: entity.Many, Title: "Top products", Description: "Lists the top products. Second line.",
			SQL: "SELECT name, total FROM t WHERE country = @country LIMIT @n;", MaxRows: 20, File: "f.sql", Line: 3,
			Params: []entity.QueryParam{
				{Name: "n", Type: entity.Integer, Description: "How many.", Minimum: &one, Maximum: &fifty, Default: ten},
				{Name: "country", Type: entity.Text, Nullable: true, Enum: []string{"NL", "BE"}, Pattern: "^[A-Z]+$", MaxLength: &two, MinLength: &two},
			},
			Columns: []entity.QueryColumn{{Name: "total", Type: entity.Number}}, Groups: []string{"products", "reports"}},
		{Name: "zap", Mode: entity.Exec, SQL: "DELETE FROM t", File: "f.sql", Line: 14},
	}
	if d := cmp.Diff(want, qs, cmpopts.IgnoreUnexported(entity.Query{})); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestParseQueriesRefuses(t *testing.T) {
	tests := []struct{ text, want string }{
		{"SELECT 1", "f.sql:1: a statement before the first -- name: line"},
		{"-- name: q\nSELECT 1", "f.sql:1: want -- name: NAME"},
		{"-- name: q :all\nSELECT 1", "f.sql:1: query q: mode"},
		{"-- name: bad name! :many\nSELECT 1", "f.sql:1"},
		{"-- name: q :many\n", "f.sql:1: query q has no statement"},
		{"-- name: q :many\n-- @param n widget\nSELECT @n", ""},
		{"-- name: q :many\n-- @param 1n text\nSELECT 1", "f.sql:2: query q: @param \"1n\""},
		{"-- name: q :many\n-- @param n text\n-- @param n text\nSELECT @n", "f.sql:3: query q: @param n declared twice"},
		{"-- name: q :many\n-- @param n integer minimum:\"x\"\nSELECT @n", "minimum: want a number"},
		{"-- name: q :many\n-- @param n integer default:\"{\"\nSELECT @n", "default: want a JSON value"},
		{"-- name: q :many\n-- @param n integer colour:\"red\"\nSELECT @n", "unknown key"},
		{"-- name: q :many\n-- @max_rows 5000\nSELECT 1", "@max_rows"},
		{"-- name: q :many\n-- @column n widget\nSELECT 1", "unknown type"},
		{"-- name: q :many\n-- @limit 5\nSELECT 1", "unknown @limit"},
		{"-- name: q :many\n-- @groups top/sellers\nSELECT 1", "f.sql:2: query q: @groups: ferry: group \"top/sellers\""},
		{"-- name: q :many\n-- @groups a\n-- @groups b\nSELECT 1", "f.sql:3: query q: @groups given twice"},
	}
	for _, tt := range tests {
		_, err := entity.ParseQueries("f.sql", tt.text)
		if tt.want == "" {
			// An unknown word after the name is the description.
			if err != nil {
				t.Errorf("%q: %v", tt.text, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v; want %q", tt.text, err, tt.want)
		}
	}
}

func TestReadQueries(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := entity.ReadQueries(dir); err == nil || !strings.Contains(err.Error(), "holds no query") {
		t.Errorf("empty dir: %v", err)
	}
	write("a.sql", "-- name: one :many\nSELECT 1 AS n")
	write("notes.txt", "-- name: ignored :many\nSELECT 1")
	qs, err := entity.ReadQueries(dir)
	if err != nil || len(qs) != 1 || qs[0].File != filepath.Join(dir, "a.sql") {
		t.Fatalf("ReadQueries = %v, %v", qs, err)
	}
	write("b.sql", "\n-- name: one :many\nSELECT 2 AS n")
	if _, err := entity.ReadQueries(dir); err == nil || !strings.Contains(err.Error(), "b.sql:2: a second query named one (the first is at ") {
		t.Errorf("two of a name: %v", err)
	}
	if _, err := entity.ReadQueries(filepath.Join(dir, "none")); err == nil {
		t.Error("a missing dir: no error")
	}
}

// @groups with no name puts the query in no group: empty, not nil.
func TestParseQueriesNoGroup(t *testing.T) {
	qs, err := entity.ParseQueries("f.sql", "-- name: q :many\n-- @groups\nSELECT 1\n-- name: r :many\nSELECT 2\n")
	if err != nil {
		t.Fatal(err)
	}
	if qs[0].Groups == nil || len(qs[0].Groups) != 0 || qs[1].Groups != nil {
		t.Errorf("groups %#v and %#v; want empty and nil", qs[0].Groups, qs[1].Groups)
	}
}
