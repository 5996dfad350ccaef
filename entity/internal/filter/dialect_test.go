package filter

import (
	"testing"

	"cel.dev/cel-go/common/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// TestMySQLLatin1Column shows a text column in another character set than
// the connection's: literals latin1 cannot hold (emoji, ā) must match
// nothing rather than raise MySQL's "illegal mix of collations", and the
// rest must match exactly (case, accents, trailing spaces).
func TestMySQLLatin1Column(t *testing.T) {
	db := dbtest.MySQL(t)
	if _, err := db.ExecContext(t.Context(), "CREATE TABLE l (id int PRIMARY KEY, name varchar(20) NOT NULL) CHARACTER SET latin1"); err != nil {
		t.Fatal(err)
	}
	names := map[int64]string{1: "é", 2: "E", 3: "e ", 4: "e", 5: "Ä"}
	for id, n := range names {
		if _, err := db.ExecContext(t.Context(), "INSERT INTO l VALUES (?, ?)", id, n); err != nil {
			t.Fatal(err)
		}
	}
	env, err := NewEnv([]Field{{Name: "name", Type: Text}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, expr := range []string{
		`name == "😀"`, `name == "ā"`, `name != "ā"`, `name in ["ā", "é"]`, `name.contains("ā")`,
		`name.startsWith("😀")`, `name.endsWith("ā")`, `name < "ā"`, `name == "é"`, `name == "e"`,
		`name.lowerAscii() == "e"`, `name.lowerAscii().contains("ä")`, `name > "Ä"`,
	} {
		var args []any
		cond, err := env.Translate(expr, MySQL, func(int) string { return "`l`.`name`" },
			func(v any, _ Type) string { args = append(args, v); return "?" })
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		rows, err := db.QueryContext(t.Context(), "SELECT id FROM l WHERE "+cond+" ORDER BY id", args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", expr, err, cond)
		}
		got := []int64{}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			got = append(got, id)
		}
		rows.Close()
		checked, iss := env.CEL().Compile(expr)
		if iss.Err() != nil {
			t.Fatal(iss.Err())
		}
		prg, err := env.CEL().Program(checked)
		if err != nil {
			t.Fatal(err)
		}
		want := []int64{}
		for id := int64(1); id <= 5; id++ {
			if out, _, _ := prg.Eval(map[string]any{"name": names[id]}); out == types.True {
				want = append(want, id)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: got %v, want %v", expr, got, want)
		}
	}
}

// TestPostgresEnumColumn shows a text field served from an enum column:
// a literal that is not one of its labels matches nothing instead of
// raising "invalid input value for enum", and ordering and matching work
// on its labels' text (an enum has no collation to give).
func TestPostgresEnumColumn(t *testing.T) {
	db := dbtest.Postgres(t)
	for _, q := range []string{
		"CREATE TYPE mood AS ENUM ('sad', 'ok', 'Happy')",
		"CREATE TABLE m (id int PRIMARY KEY, mood mood, code varchar(10))",
		"INSERT INTO m VALUES (1, 'sad', 'a'), (2, 'ok', 'B'), (3, 'Happy', 'b'), (4, NULL, NULL)",
	} {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	rows := map[int64][2]any{1: {"sad", "a"}, 2: {"ok", "B"}, 3: {"Happy", "b"}, 4: {nil, nil}}
	env, err := NewEnv([]Field{{Name: "mood", Type: Text, Nullable: true}, {Name: "code", Type: Text, Nullable: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{`"m"."mood"`, `"m"."code"`}
	for _, expr := range []string{
		`mood == "bogus"`, `mood != "bogus"`, `mood == "ok"`, `mood in ["ok", "nope"]`, `mood < "p"`,
		`mood.contains("a")`, `mood.lowerAscii() == "happy"`, `!(mood == "sad")`, `code == "b"`, `code > "a"`,
	} {
		got := pgIDs(t, db, env, expr, cols)
		checked, iss := env.CEL().Compile(expr)
		if iss.Err() != nil {
			t.Fatal(iss.Err())
		}
		prg, err := env.CEL().Program(checked)
		if err != nil {
			t.Fatal(err)
		}
		want := []int64{}
		for id := int64(1); id <= 4; id++ {
			vars := map[string]any{"mood": rows[id][0], "code": rows[id][1]}
			for k, v := range vars {
				if v == nil {
					vars[k] = types.NullValue
				}
			}
			if out, _, _ := prg.Eval(vars); out == types.True {
				want = append(want, id)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: got %v, want %v", expr, got, want)
		}
	}
}
