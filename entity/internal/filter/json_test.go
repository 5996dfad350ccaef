package filter

import (
	"database/sql"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"cel.dev/cel-go/common/types"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// jsonRows are the documents of the JSON fixture, as the column holds
// their text; "" is NULL. A text that is not JSON (SQLite keeps one) is
// served as a string.
var jsonRows = []string{
	`{"color": "red", "n": 5, "ok": true, "tags": ["a"], "size": {"w": 3}}`,
	`{"color": "Red", "n": 5.0, "ok": false}`,
	`{"color": 5, "n": "5"}`,
	`{"color": null}`,
	`{}`,
	`[1, 2]`,
	`"red"`,
	`null`,
	``,
	`{"color": "red ", "size": {"w": 3.5}, "a-b": {"c": 1}, "x' OR 1=1 --": 1}`,
	`{"color": "😀", "n": -0.5, "size": null}`,
	`{"color": "it's \"q\"", "n": 1e10}`,
	`{"ok": "true", "n": true, "color": "ｒed"}`,
	`{"color": "e\u0301", "n": 0}`,
}

// jsonExprs are filters over the JSON field attrs.
var jsonExprs = []string{
	`attrs.color == "red"`, `attrs.color != "red"`, `!(attrs.color == "red")`, `attrs.color == "Red"`,
	`attrs.color == 5`, `attrs.color == 5.0`, `attrs.n == 5`, `attrs.n == "5"`, `attrs.n != 5`,
	`attrs.ok == true`, `attrs.ok == false`, `attrs.ok != true`, `attrs.color == null`, `attrs.color != null`,
	`attrs.size.w == 3`, `attrs.size.w == 3.5`, `attrs["a-b"].c == 1`, `attrs["a-b"]["c"] == 1u`,
	`attrs == null`, `attrs != null`, `!(attrs == null)`, `attrs.color in ["red", 5]`, `!(attrs.color in ["red", null])`,
	`attrs.n == 1e10`, `attrs.n == -0.5`, `attrs.n == 0`, `attrs.color == "😀"`, `attrs.color == "it's \"q\""`,
	`attrs.color == "red "`, `attrs.n == true`, `attrs.missing == null`, `attrs.color == "red" || attrs.n == 5`,
	`attrs.color == "red" && attrs.n == 5`, `attrs.size == null`, `attrs.tags == null`, `attrs.color == "e\u0301"`,
	`attrs.color == "\u00e9"`, `attrs["x' OR 1=1 --"] == 1`, `attrs.size.w != 3 || id == 1`,
}

// TestJSONMatchesCEL filters a JSON column on every engine and compares
// the rows kept with cel-go's evaluation of the same documents.
func TestJSONMatchesCEL(t *testing.T) {
	fields := []Field{{Name: "id", Type: Integer}, {Name: "attrs", Type: JSON, Nullable: true}}
	env, err := NewEnv(fields, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := slices.Clone(jsonRows)
	for _, de := range dbtest.Engines {
		t.Run(de.Name, func(t *testing.T) {
			db := de.Open(t)
			e := &engine{name: Engine(de.Name), db: db}
			e.setDialect()
			docs := rows
			ddl, insert := "CREATE TABLE docs (id INTEGER PRIMARY KEY, attrs JSON)", "INSERT INTO docs VALUES (?, ?)"
			switch e.name {
			case PostgreSQL:
				ddl, insert = "CREATE TABLE docs (id integer PRIMARY KEY, attrs jsonb)", "INSERT INTO docs VALUES ($1, CAST(CAST($2 AS text) AS jsonb))"
			case SQLite:
				docs = append(slices.Clone(rows), "not json", "42")
			}
			if _, err := db.Exec(ddl); err != nil {
				t.Fatal(err)
			}
			for i, d := range docs {
				var v any
				if d != "" {
					v = d
				}
				if _, err := db.Exec(insert, i+1, v); err != nil {
					t.Fatalf("row %d: %v", i+1, err)
				}
			}
			before := jsonChecksum(t, db)
			for _, expr := range jsonExprs {
				got := jsonIDs(t, e, env, expr, fields)
				want := jsonOracle(t, env, expr, docs)
				if !slices.Equal(got, want) {
					t.Errorf("%s: %s kept %v; CEL keeps %v", e.name, expr, got, want)
				}
			}
			if after := jsonChecksum(t, db); after != before {
				t.Errorf("the filters changed the table")
			}
		})
	}
}

// TestJSONRefusals shows what a filter may not ask of JSON, with the
// sentence the model reads.
func TestJSONRefusals(t *testing.T) {
	env, err := NewEnv([]Field{{Name: "attrs", Type: JSON, Nullable: true}, {Name: "name", Type: Text},
		{Name: "tags", Type: Array, Items: Text, Nullable: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		`attrs.n > 3`:                                  "> is not supported",
		`attrs == "x"`:                                 "compares with null only",
		`attrs["0"] == 1`:                              "is a number",
		`attrs["a\"b"] == 1`:                           "quote or a backslash",
		`attrs[name] == 1`:                             "quoted key",
		`attrs.color == name`:                          "with a literal only",
		`attrs.a.b.c.d.e.f.g.h.i == 1`:                 "more than 8",
		`"x" in attrs.tags`:                            "membership is for array columns",
		`attrs == attrs`:                               "with a literal only",
		`tags == ["a"]`:                                "compares with a literal only",
		`tags != null && "a" in tags`:                  "only PostgreSQL",
		`attrs.c == timestamp("2024-01-01T00:00:00Z")`: "cannot be compared with a timestamp",
		`attrs in ["a"]`:                               "in is not supported on it",
		`tags in ["a"]`:                                "in needs a field on its left",
	}
	for expr, want := range cases {
		_, err := env.Translate(expr, SQLite, func(i int) string { return "c" + strconv.Itoa(i) },
			func(any, Type) string { return "?" })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v; want a refusal saying %q", expr, err, want)
		}
	}
}

// TestArrayMatchesCEL tests membership in PostgreSQL arrays against
// cel-go.
func TestArrayMatchesCEL(t *testing.T) {
	db := dbtest.Postgres(t)
	fields := []Field{{Name: "id", Type: Integer}, {Name: "tags", Type: Array, Items: Text, Nullable: true},
		{Name: "nums", Type: Array, Items: Integer, Nullable: true}, {Name: "fs", Type: Array, Items: Number, Nullable: true},
		{Name: "bs", Type: Array, Items: Boolean, Nullable: true}}
	env, err := NewEnv(fields, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE arr (id integer PRIMARY KEY, tags varchar(20)[], nums int4[], fs float8[], bs boolean[])`); err != nil {
		t.Fatal(err)
	}
	type row struct {
		tags, nums, fs, bs string // PostgreSQL array literals; "" is NULL
		cel                []any
	}
	data := []row{
		{`{a,b}`, `{1,2}`, `{0.1,2.5}`, `{t}`, []any{[]any{"a", "b"}, []any{int64(1), int64(2)}, []any{0.1, 2.5}, []any{true}}},
		{`{A,NULL}`, `{NULL,3}`, `{0.30000000000000004}`, `{f,NULL}`, []any{[]any{"A", nil}, []any{nil, int64(3)}, []any{0.30000000000000004}, []any{false, nil}}},
		{`{}`, `{}`, `{}`, `{}`, []any{[]any{}, []any{}, []any{}, []any{}}},
		{``, ``, ``, ``, []any{nil, nil, nil, nil}},
		{`{"x' OR 1=1 --","a "}`, `{-2147483648}`, `{-0.5}`, `{t,f}`, []any{[]any{"x' OR 1=1 --", "a "}, []any{int64(-2147483648)}, []any{-0.5}, []any{true, false}}},
	}
	for i, r := range data {
		args := []any{i + 1}
		for _, s := range []string{r.tags, r.nums, r.fs, r.bs} {
			if s == "" {
				args = append(args, nil)
			} else {
				args = append(args, s)
			}
		}
		if _, err := db.Exec(`INSERT INTO arr VALUES ($1, CAST(CAST($2 AS text) AS varchar(20)[]), CAST(CAST($3 AS text) AS int4[]),
			CAST(CAST($4 AS text) AS float8[]), CAST(CAST($5 AS text) AS boolean[]))`, args...); err != nil {
			t.Fatal(err)
		}
	}
	exprs := []string{`"a" in tags`, `!("a" in tags)`, `"A" in tags`, `"x' OR 1=1 --" in tags`, `"a " in tags`, `"" in tags`,
		`1 in nums`, `3 in nums`, `-2147483648 in nums`, `9223372036854775807 in nums`,
		`0.1 in fs`, `0.30000000000000004 in fs`, `0.3 in fs`, `2.5 in fs`, `true in bs`, `false in bs`, `!(false in bs)`,
		`tags == null`, `tags != null`, `"a" in tags || 3 in nums`}
	for _, expr := range exprs {
		var args []any
		cond, err := env.Translate(expr, PostgreSQL, func(i int) string { return `"` + fields[i].Name + `"` },
			func(v any, ty Type) string {
				if f, ok := v.(float64); ok {
					v = strconv.FormatFloat(f, 'g', -1, 64)
				}
				args = append(args, v)
				return "$" + strconv.Itoa(len(args))
			})
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		got := queryIDs(t, db, "SELECT id FROM arr WHERE "+cond+" ORDER BY id", args)
		checked, iss := env.CEL().Compile(expr)
		if iss.Err() != nil {
			t.Fatal(iss.Err())
		}
		prg, err := env.CEL().Program(checked)
		if err != nil {
			t.Fatal(err)
		}
		want := []int64{}
		for i, r := range data {
			vars := map[string]any{"id": int64(i + 1)}
			for k, name := range []string{"tags", "nums", "fs", "bs"} {
				vars[name] = celValue(r.cel[k])
			}
			if out, _, _ := prg.Eval(vars); out == types.True {
				want = append(want, int64(i+1))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s kept %v; CEL keeps %v\n%s", expr, got, want, cond)
		}
	}
}

func celValue(v any) any {
	if v == nil {
		return types.NullValue
	}
	return v
}

// jsonIDs translates expr for e and returns the ids of docs it keeps.
func jsonIDs(t *testing.T, e *engine, env *Env, expr string, fields []Field) []int64 {
	t.Helper()
	var args []any
	cond, err := env.Translate(expr, e.name, func(i int) string { return e.quote("docs") + "." + e.quote(fields[i].Name) },
		func(v any, ty Type) string {
			args = append(args, e.encode(v, ty))
			return e.params(len(args))
		})
	if err != nil {
		t.Fatalf("%s: %s: %v", e.name, expr, err)
	}
	return queryIDs(t, e.db, "SELECT id FROM docs WHERE "+cond+" ORDER BY id", args)
}

func queryIDs(t *testing.T, db *sql.DB, q string, args []any) []int64 {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), q, args...)
	if err != nil {
		t.Fatalf("%v\n%s %v", err, q, args)
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// jsonOracle evaluates expr with cel-go over the documents as they are
// served: parsed JSON, a text that is not JSON as a string, NULL as null.
func jsonOracle(t *testing.T, env *Env, expr string, docs []string) []int64 {
	t.Helper()
	checked, iss := env.CEL().Compile(expr)
	if iss.Err() != nil {
		t.Fatalf("%s: %v", expr, iss.Err())
	}
	prg, err := env.CEL().Program(checked)
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{}
	for i, d := range docs {
		var v any = types.NullValue
		switch {
		case d == "":
		case json.Valid([]byte(d)):
			var x any
			if err := json.Unmarshal([]byte(d), &x); err != nil {
				t.Fatal(err)
			}
			if x != nil {
				v = x
			}
		default:
			v = d
		}
		if out, _, _ := prg.Eval(map[string]any{"id": int64(i + 1), "attrs": v}); out == types.True {
			ids = append(ids, int64(i+1))
		}
	}
	return ids
}

// jsonChecksum is the docs table's text, to show filters change nothing.
func jsonChecksum(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), "SELECT id, attrs FROM docs ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id int64
		var v any
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		b.WriteString(strconv.FormatInt(id, 10) + ":")
		switch x := v.(type) {
		case []byte:
			b.Write(x)
		default:
			b.WriteString(strings.TrimSpace(strings.ReplaceAll(strconv.Quote(toString(x)), " ", "")))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func toString(v any) string {
	if v == nil {
		return "NULL"
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
