package entity

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
	"github.com/google/go-cmp/cmp"
)

var searchDDL = map[Engine]string{
	SQLite: `CREATE TABLE products (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
		description TEXT, secret TEXT)`,
	PostgreSQL: `CREATE TABLE products (id integer PRIMARY KEY, sku text NOT NULL UNIQUE, name text NOT NULL,
		description text, secret text)`,
	MySQL: `CREATE TABLE products (id INT PRIMARY KEY, sku VARCHAR(20) NOT NULL UNIQUE, name VARCHAR(200) NOT NULL,
		description TEXT, secret TEXT) CHARACTER SET utf8mb4`,
}

var searchRows = []struct {
	id                        int
	name, description, secret string
}{
	{1, "Blue widget", "A small widget for multi-agent systems.", "zebra"},
	{2, "Red gadget", "Don't panic: it's a gadget.", ""},
	{3, "Café table", "Seats four people.", ""},
	{4, "Widget widget widget", "Very widget.", ""},
	{5, "Green lamp", "", ""},
	{6, "Quantum 100% pure_thing", `Back\slash "quoted" text; DROP TABLE products; --`, ""},
}

// searchShop makes the products table with rows, its entity and a search
// index over name and description.
func searchShop(t *testing.T, engine Engine, db *sql.DB, schema string) (*Entity, Searcher) {
	t.Helper()
	execDDL(t, db, []string{searchDDL[engine]})
	for _, r := range searchRows {
		insertProduct(t, engine, db, r.id, r.name, r.description, r.secret)
	}
	es, err := Introspect(t.Context(), db, engine, &IntrospectOptions{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	e := es[0]
	s, err := CreateSearchIndex(t.Context(), db, engine, e, &SearchIndexOptions{Fields: []string{"name", "description"}})
	if err != nil {
		t.Fatal(err)
	}
	return e, s
}

func insertProduct(t *testing.T, engine Engine, db *sql.DB, id int, name, description, secret string) {
	t.Helper()
	q := "INSERT INTO products (id, sku, name, description, secret) VALUES (?, ?, ?, ?, ?)"
	if engine == PostgreSQL {
		q = "INSERT INTO products (id, sku, name, description, secret) VALUES ($1, $2, $3, $4, $5)"
	}
	var desc any = description
	if description == "" {
		desc = nil
	}
	if _, err := db.ExecContext(t.Context(), q, id, "A-"+strconv.Itoa(id), name, desc, secret); err != nil {
		t.Fatal(err)
	}
}

// search runs a list query with the searcher's condition and rank, and
// returns the ids found, best first; a Match refusal comes back as err.
func search(t *testing.T, engine Engine, db *sql.DB, e *Entity, s Searcher, alias, text string) ([]int, error) {
	t.Helper()
	var args []any
	bind := func(v any) string {
		args = append(args, v)
		if engine == PostgreSQL {
			return "$" + strconv.Itoa(len(args))
		}
		return "?"
	}
	cond, rank, err := s.Match(e, alias, text, bind)
	if err != nil {
		return nil, err
	}
	from, id := searchTable(engine, e, e.Table), searchTable(engine, e, e.Table)+".id"
	if alias != "" {
		from, id = from+" "+searchIdent(engine, alias), searchIdent(engine, alias)+".id"
	}
	q := "SELECT " + id + " FROM " + from + " WHERE " + cond + " ORDER BY " + rank + ", " + id
	return queryIDs(t.Context(), t, db, q, args...), nil
}

// queryIDs runs q and returns the integers of its one column, in order
// (an empty slice, not nil, for no rows).
func queryIDs(ctx context.Context, t *testing.T, db *sql.DB, q string, args ...any) []int {
	t.Helper()
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	ids := []int{}
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return ids
}

// countSearch counts the rows of a search with the searcher's Condition,
// which binds no rank.
func countSearch(t *testing.T, engine Engine, db *sql.DB, e *Entity, s Searcher, alias, text string) int {
	t.Helper()
	c, ok := s.(interface {
		Condition(e *Entity, alias, text string, bind func(v any) string) (string, error)
	})
	if !ok {
		t.Fatalf("%T has no Condition method", s)
	}
	var args []any
	cond, err := c.Condition(e, alias, text, func(v any) string {
		args = append(args, v)
		if engine == PostgreSQL {
			return "$" + strconv.Itoa(len(args))
		}
		return "?"
	})
	if err != nil {
		t.Fatal(err)
	}
	from := searchTable(engine, e, e.Table)
	if alias != "" {
		from += " " + searchIdent(engine, alias)
	}
	var n int
	if err := db.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM "+from+" WHERE "+cond, args...).Scan(&n); err != nil {
		t.Fatalf("count %q: %v", text, err)
	}
	return n
}

func TestSearchMatches(t *testing.T) {
	for _, eng := range dbtest.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			engine := Engine(eng.Name)
			db := eng.Open(t)
			e, s := searchShop(t, engine, db, "")
			// MySQL's natural-language mode finds rows with any of the
			// words; FTS5 and websearch_to_tsquery need all of them.
			anyWord := engine == MySQL
			tests := []struct {
				text string
				want []int
			}{
				{"widget", []int{4, 1}},
				{"WIDGET", []int{4, 1}},
				{"multi-agent", []int{1}},
				{"don't", []int{2}},
				{"café", []int{3}},
				{"CAFÉ", []int{3}},
				{"quoted", []int{6}},
				{"products", []int{6}},
				{"zebra", []int{}}, // the secret column is not indexed
				{"lamp green", []int{5}},
				{"widget gadget", map[bool][]int{false: {}, true: {2, 4, 1}}[anyWord]}, // gadget is rarer, so it weighs more
				{"nothing-like-this", []int{}},
			}
			for _, alias := range []string{"t", ""} {
				for _, tt := range tests {
					got, err := search(t, engine, db, e, s, alias, tt.text)
					if err != nil {
						t.Errorf("search %q: %v", tt.text, err)
						continue
					}
					if diff := cmp.Diff(tt.want, got); diff != "" {
						t.Errorf("search %q with alias %q (-want +got):\n%s", tt.text, alias, diff)
					}
					if n := countSearch(t, engine, db, e, s, alias, tt.text); n != len(tt.want) {
						t.Errorf("count of search %q with alias %q = %d, want %d", tt.text, alias, n, len(tt.want))
					}
				}
			}
		})
	}
}

// nastySearches are texts a model might send: query syntax of each
// engine, SQL, quotes, unicode. None may cause an SQL error.
var nastySearches = []string{
	`multi-agent`, `don't`, `"widget`, `widget"`, `wid"get`, `"`, `""`, `*`, `widg*`, `NEAR`, `NEAR(widget gadget)`,
	`AND`, `widget AND gadget`, `widget OR gadget`, `NOT widget`, `-widget`, `+widget -gadget`, `widget -`,
	`name:widget`, `{name}: widget`, `^widget`, `(widget`, `widget)`, `'`, `''`, `\`, `\\widget`, `;`,
	`'; DROP TABLE products; --`, `/* comment */ widget`, `%`, `_`, `100%`, `pure_thing`, `@widget`,
	`~widget`, `<widget`, `>widget`, `widget & gadget`, `widget | gadget`, `!widget`, `widget:*`, `:*`,
	`ｗｉｄｇｅｔ`, `Ꮤidget`, `café`, `商品`, `🙂 widget`, "widget\tgadget", "tab\u00a0space", `e\u0301`,
	`a`, `the`, `or`, `x` + strings.Repeat("y", 400), strings.Repeat("widget ", 32),
}

func TestSearchNastyInput(t *testing.T) {
	for _, eng := range dbtest.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			engine := Engine(eng.Name)
			db := eng.Open(t)
			e, s := searchShop(t, engine, db, "")
			for _, text := range nastySearches {
				// search fails the test on any SQL error; a refusal must
				// be the one for text without words.
				if _, err := search(t, engine, db, e, s, "t", text); err != nil && !errors.Is(err, errNoSearchWords) {
					t.Errorf("search %q: %v", text, err)
				}
			}
			var n int
			if err := db.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM products").Scan(&n); err != nil || n != len(searchRows) {
				t.Errorf("products has %d rows after the nasty searches (%v), want %d", n, err, len(searchRows))
			}
		})
	}
}

func TestSearchRefusals(t *testing.T) {
	e := &Entity{Name: "product", Table: "products", Fields: []*Field{{Name: "name", Column: "name", Type: Text}}}
	searchers := []Searcher{
		&FTS5Searcher{Table: "products_fts", Fields: []string{"name"}},
		&PostgresSearcher{Column: "search_vector", Fields: []string{"name"}},
		&MySQLSearcher{Fields: []string{"name"}},
	}
	tests := []struct{ text, want string }{
		{"", "search: give at least one word (letters or digits)"},
		{"   ", "search: give at least one word (letters or digits)"},
		{`"`, "search: give at least one word (letters or digits)"},
		{`* - ( ) "" ''`, "search: give at least one word (letters or digits)"},
		{"a\x00b", "search: the text holds a NUL character"},
		{"\xff", "search: the text is not valid UTF-8"},
		{strings.Repeat("é", MaxSearchText+1), fmt.Sprintf("search: the text is %d characters; at most %d are allowed", MaxSearchText+1, MaxSearchText)},
		{strings.Repeat("w ", MaxSearchWords+1), fmt.Sprintf("search: the text has %d words; at most %d are allowed", MaxSearchWords+1, MaxSearchWords)},
	}
	for _, s := range searchers {
		for _, tt := range tests {
			bound := 0
			_, _, err := s.Match(e, "t", tt.text, func(any) string { bound++; return "?" })
			if err == nil || err.Error() != tt.want {
				t.Errorf("%T.Match(%.20q) = %v, want %q", s, tt.text, err, tt.want)
			}
			if bound != 0 {
				t.Errorf("%T.Match(%.20q) bound %d values before refusing", s, tt.text, bound)
			}
		}
	}
}

func TestFTS5Query(t *testing.T) {
	tests := []struct{ text, want string }{
		{"multi-agent", `"multi-agent"`},
		{`don't "stop" now`, `"don't" """stop""" "now"`},
		{"NEAR AND widg*", `"NEAR" "AND" "widg*"`},
		{"  café   商品 ", `"café" "商品"`},
	}
	for _, tt := range tests {
		words, err := searchWords(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := fts5Query(words); got != tt.want {
			t.Errorf("fts5Query(%q) = %s, want %s", tt.text, got, tt.want)
		}
	}
}

// TestSearchInSync changes rows after the index exists: the FTS5
// triggers, the generated tsvector and the FULLTEXT index must follow.
func TestSearchInSync(t *testing.T) {
	for _, eng := range dbtest.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			engine := Engine(eng.Name)
			db := eng.Open(t)
			e, s := searchShop(t, engine, db, "")
			expect := func(text string, want ...int) {
				t.Helper()
				got, err := search(t, engine, db, e, s, "t", text)
				if err != nil {
					t.Fatal(err)
				}
				if want == nil {
					want = []int{}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("search %q (-want +got):\n%s", text, diff)
				}
			}
			insertProduct(t, engine, db, 7, "Purple sprocket", "Spins.", "")
			expect("sprocket", 7)
			update := "UPDATE products SET name = ?, description = NULL WHERE id = ?"
			if engine == PostgreSQL {
				update = "UPDATE products SET name = $1, description = NULL WHERE id = $2"
			}
			if _, err := db.ExecContext(t.Context(), update, "Orange flywheel", 7); err != nil {
				t.Fatal(err)
			}
			expect("sprocket")
			expect("spins")
			expect("flywheel", 7)
			if _, err := db.ExecContext(t.Context(), "DELETE FROM products WHERE id = 7"); err != nil {
				t.Fatal(err)
			}
			expect("flywheel")
			if _, err := db.ExecContext(t.Context(), "DELETE FROM products WHERE id = 1"); err != nil {
				t.Fatal(err)
			}
			expect("widget", 4)
		})
	}
}

func TestSearchIndexFoundAgain(t *testing.T) {
	for _, eng := range dbtest.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			engine := Engine(eng.Name)
			db := eng.Open(t)
			schema := currentSchema(t, db, engine)
			e, created := searchShop(t, engine, db, schema)
			if e.Schema != schema {
				t.Fatalf("entity Schema %q, want %q", e.Schema, schema)
			}
			found, err := FindSearchIndex(t.Context(), db, engine, e)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(created, found); diff != "" {
				t.Errorf("FindSearchIndex (-created +found):\n%s", diff)
			}
			again, err := CreateSearchIndex(t.Context(), db, engine, e, &SearchIndexOptions{Fields: []string{"name", "description"}})
			if err != nil || cmp.Diff(created, again) != "" {
				t.Errorf("CreateSearchIndex again = %#v, %v; want the same index", again, err)
			}
			_, err = CreateSearchIndex(t.Context(), db, engine, e, &SearchIndexOptions{Fields: []string{"name"}})
			if want := "entity: products already has a search index, over name, description"; err == nil || err.Error() != want {
				t.Errorf("CreateSearchIndex over other fields: %v, want %q", err, want)
			}
			if ids, err := search(t, engine, db, e, found, "p", "widget"); err != nil || cmp.Diff([]int{4, 1}, ids) != "" {
				t.Errorf("search with the schema-qualified entity = %v, %v", ids, err)
			}

			es, err := Introspect(t.Context(), db, engine, nil)
			if err != nil {
				t.Fatal(err)
			}
			var searchable []string
			for _, f := range es[0].Fields {
				searchable = append(searchable, fmt.Sprintf("%s:%v", f.Name, f.Searchable))
			}
			want := []string{"id:false", "sku:false", "name:true", "description:true", "secret:false"}
			if diff := cmp.Diff(want, searchable); diff != "" {
				t.Errorf("Introspect after the index: fields (-want +got):\n%s", diff)
			}

			// An index over a column the entity leaves out would let a
			// search find rows by it: it is not used.
			es, err = Introspect(t.Context(), db, engine, &IntrospectOptions{ExcludeColumns: []string{"description"}})
			if err != nil {
				t.Fatal(err)
			}
			if s, err := FindSearchIndex(t.Context(), db, engine, es[0]); s != nil || err != nil {
				t.Errorf("FindSearchIndex with description left out = %#v, %v; want nil, nil", s, err)
			}
			for _, f := range es[0].Fields {
				if f.Searchable {
					t.Errorf("%s is Searchable with description left out", f.Name)
				}
			}
		})
	}
}

func TestCreateSearchIndexRefusals(t *testing.T) {
	db := dbtest.SQLite(t)
	e := &Entity{Name: "product", Table: "products", Fields: []*Field{
		{Name: "name", Column: "name", Type: Text},
		{Name: "price", Column: "price", Type: Number},
	}}
	tests := []struct {
		e    *Entity
		opts *SearchIndexOptions
		want string
	}{
		{nil, nil, "entity: CreateSearchIndex of a nil entity"},
		{e, nil, "entity: products has no searchable fields; name them in SearchIndexOptions.Fields"},
		{e, &SearchIndexOptions{Fields: []string{"nope"}}, `entity: products has no field "nope" to index`},
		{e, &SearchIndexOptions{Fields: []string{"price"}}, "entity: products.price is not a text field; only text is indexed for search"},
		{&Entity{Table: "v", View: true}, nil, "entity: v is a view; a search index needs a table"},
	}
	for _, tt := range tests {
		_, err := CreateSearchIndex(t.Context(), db, SQLite, tt.e, tt.opts)
		if err == nil || err.Error() != tt.want {
			t.Errorf("CreateSearchIndex: %v, want %q", err, tt.want)
		}
	}
	execDDL(t, db, []string{
		`CREATE TABLE norowid (code TEXT PRIMARY KEY, name TEXT) WITHOUT ROWID`,
		`CREATE TABLE shadow (id INTEGER PRIMARY KEY, "RowID" INTEGER, name TEXT)`,
	})
	for table, want := range map[string]string{
		"norowid": "entity: norowid is a WITHOUT ROWID table; FTS5 search needs a rowid",
		"shadow":  "entity: shadow has a column named rowid, which hides the rowid FTS5 search needs",
		"missing": `entity: no table "missing" to index`,
	} {
		e := &Entity{Table: table, Fields: []*Field{{Name: "name", Column: "name", Type: Text}}}
		_, err := CreateSearchIndex(t.Context(), db, SQLite, e, &SearchIndexOptions{Fields: []string{"name"}})
		if err == nil || err.Error() != want {
			t.Errorf("CreateSearchIndex on %s: %v, want %q", table, err, want)
		}
	}
	if _, err := CreateSearchIndex(t.Context(), db, PostgreSQL, e, &SearchIndexOptions{Fields: []string{"name"}, Config: "english'; --"}); err == nil {
		t.Error("CreateSearchIndex took a bad text search configuration name")
	}
}

func TestParseFTS5(t *testing.T) {
	tests := []struct {
		ddl     string
		cols    []string
		content string
		ok      bool
	}{
		{`CREATE VIRTUAL TABLE "p_fts" USING fts5("name", "description", content='products', content_rowid='rowid')`,
			[]string{"name", "description"}, "products", true},
		{`CREATE VIRTUAL TABLE x USING FTS5(a, [b c] UNINDEXED, 'd''e', content = "order ""items""")`,
			[]string{"a", "b c", "d'e"}, `order "items"`, true},
		{`CREATE VIRTUAL TABLE x USING fts5(a, b)`, []string{"a", "b"}, "", false},
		{`CREATE VIRTUAL TABLE x USING rtree(id, a, b)`, nil, "", false},
		{`CREATE VIRTUAL TABLE x USING fts5(`, nil, "", false},
	}
	for _, tt := range tests {
		cols, content, ok := parseFTS5(tt.ddl)
		if ok != tt.ok || content != tt.content || (ok && cmp.Diff(tt.cols, cols) != "") {
			t.Errorf("parseFTS5(%s) = %q, %q, %v", tt.ddl, cols, content, ok)
		}
	}
}

// FuzzFTS5Match runs every text through FTS5Searcher against a real FTS5
// table: a text is either refused or runs without an SQL error, and the
// table is never changed.
func FuzzFTS5Match(f *testing.F) {
	for _, s := range nastySearches {
		f.Add(s)
	}
	db := dbtest.SQLite(f)
	for _, s := range []string{searchDDL[SQLite], `INSERT INTO products VALUES (1, 'A-1', 'Blue widget', 'multi-agent', NULL)`} {
		if _, err := db.Exec(s); err != nil {
			f.Fatal(err)
		}
	}
	es, err := Introspect(f.Context(), db, SQLite, nil)
	if err != nil {
		f.Fatal(err)
	}
	s, err := CreateSearchIndex(f.Context(), db, SQLite, es[0], &SearchIndexOptions{Fields: []string{"name", "description"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var args []any
		cond, rank, err := s.Match(es[0], "t", text, func(v any) string { args = append(args, v); return "?" })
		if err != nil {
			return
		}
		rows, err := db.QueryContext(t.Context(), "SELECT t.id FROM products t WHERE "+cond+" ORDER BY "+rank, args...)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		if err != nil {
			t.Fatalf("search %q: %v", text, err)
		}
	})
}

// FuzzParseFTS5 checks that parseFTS5 reads back the columns and content
// table of the statement CreateSearchIndex writes, whatever their names,
// and never panics on other text.
func FuzzParseFTS5(f *testing.F) {
	f.Add("name", "description", "products")
	f.Add(`we"ird`, "a, b", "order 'items'")
	f.Add("[x]", "`y`", "=")
	f.Fuzz(func(t *testing.T, a, b, table string) {
		parseFTS5(a + b + table) // any text: no panic
		if a == "" || b == "" || table == "" || strings.ContainsRune(a+b+table, 0) {
			return
		}
		ddl := "CREATE VIRTUAL TABLE " + searchIdent(SQLite, table+"_fts") + " USING fts5(" +
			searchIdent(SQLite, a) + ", " + searchIdent(SQLite, b) + ", content=" + sqlString(table) + ", content_rowid='rowid')"
		cols, content, ok := parseFTS5(ddl)
		if !ok || content != table || cmp.Diff([]string{a, b}, cols) != "" {
			t.Fatalf("parseFTS5(%s) = %q, %q, %v", ddl, cols, content, ok)
		}
	})
}

// TestFTS5RankScales searches for a word every row holds: ranking must
// cost about one run of the query, not one per row (which took minutes
// for 100,000 rows). The deadline only catches that: a quadratic plan
// over 20,000 rows misses it by far, while a loaded machine under -race
// (24 s seen) stays inside.
func TestFTS5RankScales(t *testing.T) {
	db := dbtest.SQLite(t)
	execDDL(t, db, []string{
		searchDDL[SQLite],
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
			INSERT INTO products (id, sku, name) SELECT i, 'S-' || i, 'common ' || i ||
			CASE WHEN i % 1000 = 0 THEN ' common common' ELSE '' END FROM n`,
	})
	es, err := Introspect(t.Context(), db, SQLite, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := CreateSearchIndex(t.Context(), db, SQLite, es[0], &SearchIndexOptions{Fields: []string{"name"}})
	if err != nil {
		t.Fatal(err)
	}
	var args []any
	cond, rank, err := s.Match(es[0], "t", "common", func(v any) string { args = append(args, v); return "?" })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	ids := queryIDs(ctx, t, db, "SELECT t.id FROM products t WHERE "+cond+" ORDER BY "+rank+", t.id LIMIT 3", args...)
	if diff := cmp.Diff([]int{1000, 2000, 3000}, ids); diff != "" {
		t.Errorf("best matches (-want +got):\n%s", diff)
	}
}
