package likesearch

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/google/go-cmp/cmp"
)

func TestPatternEscapesWildcards(t *testing.T) {
	for in, want := range map[string]string{
		"Mug":    "%mug%",
		"100%":   "%100!%%",
		"a_b":    "%a!_b%",
		"wow!":   "%wow!!%",
		"'; --":  "%'; --%",
		"ÉCOLE":  "%école%",
		`back\s`: `%back\s%`,
	} {
		if got := Pattern(in); got != want {
			t.Errorf("Pattern(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestConditionBindsEveryWord(t *testing.T) {
	e := &entity.Entity{Name: "product", Fields: []*entity.Field{
		{Name: "name", Column: "name", Type: entity.Text},
		{Name: "notes", Column: `odd"col`, Type: entity.Text},
		{Name: "price", Column: "price", Type: entity.Number},
	}}
	var bound []any
	bind := func(v any) string { bound = append(bound, v); return "$" + strconv.Itoa(len(bound)) }
	s := &Searcher{Engine: entity.PostgreSQL, Fields: []string{"name", "notes"}}
	cond, rank, err := s.Match(e, "t", "  blue   mug' OR 1=1 ", bind)
	if err != nil {
		t.Fatal(err)
	}
	want := `(LOWER(t."name") LIKE $1 ESCAPE '!' OR LOWER(t."odd""col") LIKE $2 ESCAPE '!')` +
		` AND (LOWER(t."name") LIKE $3 ESCAPE '!' OR LOWER(t."odd""col") LIKE $4 ESCAPE '!')` +
		` AND (LOWER(t."name") LIKE $5 ESCAPE '!' OR LOWER(t."odd""col") LIKE $6 ESCAPE '!')` +
		` AND (LOWER(t."name") LIKE $7 ESCAPE '!' OR LOWER(t."odd""col") LIKE $8 ESCAPE '!')`
	if cond != want || rank != "" {
		t.Errorf("cond = %s, rank %q;\nwant %s", cond, rank, want)
	}
	if diff := cmp.Diff([]any{"%blue%", "%blue%", "%mug'%", "%mug'%", "%or%", "%or%", "%1=1%", "%1=1%"}, bound); diff != "" {
		t.Errorf("bound (-want +got):\n%s", diff)
	}
	my := &Searcher{Engine: entity.MySQL, Fields: []string{"notes"}}
	if c, _ := my.Condition(e, "t", "x", func(any) string { return "?" }); c != "(LOWER(t.`odd\"col`) LIKE ? ESCAPE '!')" {
		t.Errorf("MySQL condition = %s", c)
	}
}

func TestConditionRefusesBadText(t *testing.T) {
	e := &entity.Entity{Name: "product", Fields: []*entity.Field{{Name: "name", Column: "name", Type: entity.Text}, {Name: "price", Column: "price", Type: entity.Number}}}
	s := &Searcher{Engine: entity.SQLite, Fields: []string{"name"}}
	bind := func(any) string { return "?" }
	for _, text := range []string{"", "   ", strings.Repeat("a ", entity.MaxSearchWords+1), strings.Repeat("x", entity.MaxSearchText+1)} {
		_, err := s.Condition(e, "t", text, bind)
		var r *ferry.Refusal
		if !errors.As(err, &r) {
			t.Errorf("Condition(%.20q…) = %v; want a refusal", text, err)
		}
	}
	if _, err := (&Searcher{Engine: entity.SQLite, Fields: []string{"price"}}).Condition(e, "t", "x", bind); err == nil {
		t.Error("a search over a number field: no error")
	}
}

// Whatever the column's name and the text, the text reaches the SQL only
// through bind, and the identifier's quotes stay balanced.
func FuzzCondition(f *testing.F) {
	f.Add(`odd"col`, "blue mug")
	f.Add("na`me", "'; DROP TABLE x; --")
	f.Add("x", "100% a_b !")
	f.Fuzz(func(t *testing.T, column, text string) {
		for _, engine := range []entity.Engine{entity.SQLite, entity.PostgreSQL, entity.MySQL} {
			e := &entity.Entity{Name: "t", Fields: []*entity.Field{{Name: "f", Column: column, Type: entity.Text}}}
			n := 0
			cond, err := (&Searcher{Engine: engine, Fields: []string{"f"}}).Condition(e, "t", text, func(any) string { n++; return "?" })
			if err != nil {
				return
			}
			q := `"`
			if engine == entity.MySQL {
				q = "`"
			}
			quoted := q + strings.ReplaceAll(column, q, q+q) + q
			// One test per word, each the quoted column against a bound
			// pattern, and nothing else.
			rest := strings.ReplaceAll(cond, "(LOWER(t."+quoted+") LIKE ? ESCAPE '!')", "X")
			if n != len(strings.Fields(text)) || strings.Trim(strings.ReplaceAll(rest, "X AND ", ""), "X") != "" {
				t.Fatalf("%s: column %q, text %q: %d binds, SQL %s", engine, column, text, n, cond)
			}
		}
	})
}
