package filter

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// injectionTexts are values a hostile or unlucky caller puts in string
// literals: quotes, comments, statement ends, backslashes, LIKE's and
// placeholders' characters, look-alikes, and a literal as long as the
// length limit allows.
var injectionTexts = []string{
	`'`, `"`, `''`, `' OR '1'='1`, `" OR ""="`, `' OR 1=1 --`,
	`--`, `/*`, `*/`, `;`, `; DROP TABLE items; --`, `-- c /* x */; DROP TABLE items`,
	`\`, `\\`, `\'`, `\"`, `it's "quoted"`, `back\slash`,
	`%`, `_`, `%%`, `\%`, `\_`, `a%b_c`, `100%`, `under_score`, `[a-z]`, `*`, `?`, `$1`, `:name`, `@p1`,
	"ａpple", "раple", "\u2019", "\uff07", "\u02bc", "\uff1b", "e\u0301", "\u00e9", "ÄPPLE", "äpple",
	"😀", "\U0001F34E", "\u200b", "\r\n", "\t",
	"apple", "Apple", "APPLE", "apple ", " apple", "",
	strings.Repeat("'", 600), strings.Repeat(`\`, 600), strings.Repeat("a", 1900),
}

// celString writes s as a CEL literal in each quoting the text allows.
func celStrings(s string) []string {
	out := []string{strconv.Quote(s)}
	if !strings.ContainsAny(s, "'\\\n\r") {
		out = append(out, "'"+s+"'")
	}
	if !strings.ContainsAny(s, "\"\n\r") {
		out = append(out, `r"`+s+`"`)
	}
	return out
}

// injectionExprs puts every text in every place a literal can go.
func injectionExprs() []string {
	var out []string
	for _, s := range injectionTexts {
		for _, q := range celStrings(s) {
			for _, form := range []string{
				"name == %s", "note == %s", "name != %s", "note != %s", "name < %s", "note >= %s",
				"note.contains(%s)", "name.contains(%s)", "name.startsWith(%s)", "note.endsWith(%s)",
				"name in [%s, \"apple\"]", "!(note in [%s])", "uid == %s",
				"name.lowerAscii() == %s", "!note.lowerAscii().contains(%s)",
			} {
				if e := strings.ReplaceAll(form, "%s", q); len(e) <= DefaultMaxLength {
					out = append(out, e)
				}
			}
		}
	}
	return out
}

// hostileExprs try to smuggle SQL through the expression itself; each is
// refused or means what CEL says.
var hostileExprs = []string{
	`name == "x" || 1 == 1`, `name == "x"; DROP TABLE items`, `name == "x" -- comment`,
	`name == "x" /* c */`, `name == "x") OR (1=1`, `name == "x' OR '1'='1"`,
	"name == `x`", `items.name == "x"`, `name == "x" UNION SELECT 1`, `"x" == "x"`,
	`name == "\x00"`, `note.contains("\x00")`, `name == "a\u0000b"`, `name == '\'' || note == '\\'`,
	`id == 1 || id == 2 || id == 3`, `stock == 1; stock == 2`, `note == r"\'"`,
}

// TestInjection runs the injection corpus on every engine: every literal
// is accepted, returns exactly the rows cel-go's evaluation keeps, never
// raises an SQL error, and the database is unchanged afterwards.
func TestInjection(t *testing.T) {
	env := fixtureEnv(t)
	exprs := injectionExprs()
	want := make(map[string][]int64, len(exprs))
	for _, e := range exprs {
		want[e] = celIDs(t, env, e)
	}
	forEachEngine(t, func(t *testing.T, e *engine) {
		before := e.checksum(t)
		for _, expr := range exprs {
			got, err := e.selectIDs(t, env, expr)
			if err != nil {
				t.Errorf("%.80q: refused: %v", expr, err)
				continue
			}
			if diff := cmp.Diff(want[expr], got); diff != "" {
				t.Errorf("%.80q: got %v, want %v", expr, got, want[expr])
			}
		}
		for _, expr := range hostileExprs {
			got, err := e.selectIDs(t, env, expr)
			var fe *Error
			switch {
			case errors.As(err, &fe):
			case err != nil:
				t.Errorf("%q: not a refusal: %v", expr, err)
			default:
				if w := celIDs(t, env, expr); !cmp.Equal(w, got) {
					t.Errorf("%q: got %v, want %v", expr, got, w)
				}
			}
		}
		if after := e.checksum(t); after != before {
			t.Errorf("the database changed: checksum %s before, %s after", before, after)
		}
	})
	t.Logf("%d literal expressions, %d hostile ones", len(exprs), len(hostileExprs))
}
