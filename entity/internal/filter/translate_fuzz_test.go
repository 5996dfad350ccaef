package filter

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// sqlToken splits the SQL the translator writes into tokens.
var sqlToken = regexp.MustCompile(`\$[0-9]+|\?|"[A-Za-z_]+"|` + "`[a-z]+`" + `|[A-Za-z_][A-Za-z_0-9]*|[0-9]+|<=>|<>|<=|>=|[=<>(),.-]|\s+`)

// asciiLetters are the letters MySQL's lowerAscii() replaces, the only
// numbers the translator writes.
var asciiLetters = regexp.MustCompile(`CHAR\((6[5-9]|[78][0-9]|90|9[7-9]|1[01][0-9]|12[0-2])\)`)

// sqlWords is every word the translator may write: keywords, functions
// and type names of its own. A literal's text is never among its tokens.
var sqlWords = map[string]bool{}

func init() {
	for w := range strings.FieldsSeq(`AND OR NOT IS NULL DISTINCT FROM IN TRUE FALSE CASE WHEN
		THEN ELSE END COLLATE BINARY CAST AS bigint double precision integer text CONVERT USING
		utf8mb4 instr substr strpos starts_with right LOCATE LEFT RIGHT REPLACE lower 0 1`) {
		sqlWords[w] = true
	}
}

// checkSQL fails unless sql is made only of the translator's own words,
// the columns, placeholders and punctuation, with one placeholder per
// bound value.
func checkSQL(t *testing.T, engine Engine, expr, sql string, binds int) {
	t.Helper()
	rest := sqlToken.ReplaceAllStringFunc(asciiLetters.ReplaceAllString(sql, ""), func(tok string) string {
		switch {
		case strings.TrimSpace(tok) == "", tok == "?", strings.HasPrefix(tok, "$"), sqlWords[tok],
			strings.ContainsAny(tok[:1], "=<>(),.-"):
			return ""
		case tok == `"C"` && engine == PostgreSQL:
			return ""
		case tok == `"items"` || tok == "`items`":
			return ""
		}
		name := strings.Trim(tok, "\"`")
		for _, f := range fixtureFields {
			if name == f.Name && name != tok {
				return ""
			}
		}
		return "«" + tok + "»"
	})
	if rest != "" {
		t.Fatalf("%q on %s: the SQL has text that is not the translator's own: %s\n%s", expr, engine, rest, sql)
	}
	n := strings.Count(sql, "?")
	if engine == PostgreSQL {
		n = strings.Count(sql, "$")
	}
	if n != binds {
		t.Fatalf("%q on %s: %d placeholders for %d bound values\n%s", expr, engine, n, binds, sql)
	}
}

// FuzzTranslate feeds arbitrary expressions to the translator: it never
// panics, a refusal is an *Error of bounded size, the SQL holds nothing
// of the expression's literals, and on SQLite it runs and keeps exactly
// the rows cel-go's evaluation keeps.
func FuzzTranslate(f *testing.F) {
	for _, tt := range filterTable {
		f.Add(tt.expr)
	}
	for _, tt := range invalidTable {
		f.Add(tt.expr)
	}
	for _, e := range hostileExprs {
		f.Add(e)
	}
	env := fixtureEnv(f)
	db := &engine{name: SQLite, db: dbtest.SQLite(f)}
	db.setDialect()
	if err := db.load(f.Context()); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		for _, eng := range []Engine{SQLite, PostgreSQL, MySQL} {
			e := &engine{name: eng}
			e.setDialect()
			binds := 0
			sql, err := env.Translate(expr, eng,
				func(i int) string { return e.quote("items") + "." + e.quote(fixtureFields[i].Name) },
				func(any, Type) string { binds++; return e.params(binds) })
			if err != nil {
				var fe *Error
				if !errors.As(err, &fe) {
					t.Fatalf("%q: an error that is not a refusal: %v", expr, err)
				}
				if len(err.Error()) > 1200 {
					t.Fatalf("%q: a refusal of %d bytes", expr, len(err.Error()))
				}
				return
			}
			checkSQL(t, eng, expr, sql, binds)
		}
		got, err := db.selectIDs(t, env, expr)
		if err != nil {
			t.Fatal(err)
		}
		if want := celIDs(t, env, expr); !cmp.Equal(want, got) {
			t.Fatalf("%q: SQLite keeps %v, cel-go %v", expr, got, want)
		}
	})
}
