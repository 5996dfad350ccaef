package entity

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
	"github.com/google/go-cmp/cmp"
)

// The shop schema, once per engine: an identity key, a UUID key (text
// outside PostgreSQL), a text key, natural keys, a composite key, no key,
// a view, a generated column, defaults, comments (not on SQLite),
// nullable and not-null columns, foreign keys (one to an implicit primary
// key on SQLite), an enum, tables named "order items", "1st-quarter" and
// "select", decimal, boolean, timestamp and date columns, a column of a
// type not served and a column whose name is not an identifier.
var shopDDL = map[Engine][]string{
	SQLite: {
		`CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, description TEXT)`,
		`CREATE TABLE products (
			id INTEGER PRIMARY KEY,
			sku VARCHAR(20) NOT NULL UNIQUE,
			name TEXT NOT NULL,
			description TEXT,
			price DECIMAL(10,2) NOT NULL DEFAULT 0,
			in_stock BOOLEAN NOT NULL DEFAULT 1,
			category_id INTEGER REFERENCES categories(id),
			status TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'retired')),
			created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
			released DATE,
			price_with_tax DECIMAL(10,2) GENERATED ALWAYS AS (price * 1.2) STORED,
			picture BLOB)`,
		`CREATE TABLE customers (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT)`,
		`CREATE TABLE countries (code TEXT PRIMARY KEY, name TEXT NOT NULL)`,
		`CREATE TABLE "order items" (order_id INTEGER NOT NULL, line INTEGER NOT NULL,
			product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL DEFAULT 1,
			PRIMARY KEY (order_id, line))`,
		`CREATE TABLE "1st-quarter" (region TEXT, total NUMERIC)`,
		`CREATE TABLE "select" (id INTEGER PRIMARY KEY, "from" TEXT, "Order Date" DATE, country TEXT REFERENCES countries)`,
		`CREATE VIEW active_products AS SELECT id, sku, name FROM products WHERE status = 'active'`,
	},
	PostgreSQL: {
		`CREATE TYPE product_status AS ENUM ('draft', 'active', 'retired')`,
		`CREATE TABLE categories (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
			name text NOT NULL UNIQUE, description text)`,
		`COMMENT ON TABLE categories IS 'Product groups.'`,
		`COMMENT ON COLUMN categories.description IS 'Shown to shoppers.'`,
		`CREATE TABLE products (
			id bigserial PRIMARY KEY,
			sku varchar(20) NOT NULL UNIQUE,
			name text NOT NULL,
			description text,
			price numeric(10,2) NOT NULL DEFAULT 0,
			in_stock boolean NOT NULL DEFAULT true,
			category_id integer REFERENCES categories(id),
			status product_status NOT NULL DEFAULT 'draft',
			created_at timestamptz NOT NULL DEFAULT now(),
			released date,
			price_with_tax numeric(10,2) GENERATED ALWAYS AS (price * 1.2) STORED,
			picture bytea)`,
		`COMMENT ON TABLE products IS 'Things we sell.'`,
		`COMMENT ON COLUMN products.sku IS 'Stock keeping unit.'`,
		`CREATE TABLE customers (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), email text NOT NULL UNIQUE, name text)`,
		`CREATE TABLE countries (code char(2) PRIMARY KEY, name text NOT NULL)`,
		`CREATE TABLE "order items" (order_id integer NOT NULL, line integer NOT NULL,
			product_id bigint NOT NULL REFERENCES products(id), quantity integer NOT NULL DEFAULT 1,
			PRIMARY KEY (order_id, line))`,
		`CREATE TABLE "1st-quarter" (region text, total numeric)`,
		`CREATE TABLE "select" (id integer PRIMARY KEY, "from" text, "Order Date" date, country char(2) REFERENCES countries)`,
		`CREATE VIEW active_products AS SELECT id, sku, name FROM products WHERE status = 'active'`,
	},
	MySQL: {
		`CREATE TABLE categories (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(100) NOT NULL UNIQUE,
			description TEXT COMMENT 'Shown to shoppers.') COMMENT 'Product groups.'`,
		`CREATE TABLE products (
			id BIGINT AUTO_INCREMENT PRIMARY KEY,
			sku VARCHAR(20) NOT NULL UNIQUE COMMENT 'Stock keeping unit.',
			name VARCHAR(200) NOT NULL,
			description TEXT,
			price DECIMAL(10,2) NOT NULL DEFAULT 0,
			in_stock BOOLEAN NOT NULL DEFAULT TRUE,
			category_id INT,
			status ENUM('draft', 'active', 'retired') NOT NULL DEFAULT 'draft',
			created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
			released DATE,
			price_with_tax DECIMAL(10,2) AS (price * 1.2) STORED,
			picture BLOB,
			FOREIGN KEY (category_id) REFERENCES categories(id)) COMMENT 'Things we sell.'`,
		`CREATE TABLE customers (id CHAR(36) PRIMARY KEY, email VARCHAR(200) NOT NULL UNIQUE, name VARCHAR(200))`,
		`CREATE TABLE countries (code CHAR(2) PRIMARY KEY, name VARCHAR(100) NOT NULL)`,
		"CREATE TABLE `order items` (order_id INT NOT NULL, line INT NOT NULL, product_id BIGINT NOT NULL," +
			" quantity INT NOT NULL DEFAULT 1, PRIMARY KEY (order_id, line)," +
			" FOREIGN KEY (product_id) REFERENCES products(id))",
		"CREATE TABLE `1st-quarter` (region VARCHAR(50), total DECIMAL(12,2))",
		"CREATE TABLE `select` (id INT PRIMARY KEY, `from` TEXT, `Order Date` DATE, country CHAR(2)," +
			" FOREIGN KEY (country) REFERENCES countries(code))",
		`CREATE VIEW active_products AS SELECT id, sku, name FROM products WHERE status = 'active'`,
	},
}

func execDDL(t *testing.T, db *sql.DB, stmts []string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.ExecContext(t.Context(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// shopModel is the model Introspect must read from shopDDL on engine.
func shopModel(engine Engine) []*Entity {
	pg, my := engine == PostgreSQL, engine == MySQL
	comment := func(s string) string {
		if engine == SQLite {
			return ""
		}
		return s
	}
	pick := func(sqlite, postgres, mysql string) string {
		return map[Engine]string{SQLite: sqlite, PostgreSQL: postgres, MySQL: mysql}[engine]
	}
	uuid := Text
	if pg {
		uuid = UUID
	}
	// SQLite's from its CHECK (status IN (...)), the others' from their
	// enum types.
	status := []string{"draft", "active", "retired"}
	f := func(name string, typ Type, nullable bool) *Field {
		return &Field{Name: name, Column: name, Type: typ, Nullable: nullable, Filterable: true, Sortable: true}
	}
	with := func(fl *Field, change func(*Field)) *Field { change(fl); return fl }
	id := func(typ Type) *Field {
		return with(f("id", typ, false), func(fl *Field) { fl.Generated, fl.HasDefault = true, true })
	}
	def := func(fl *Field) *Field { fl.HasDefault = true; return fl }
	viewNullable := !my // MySQL reports a view column's nullability from its table
	// What the columns' types hold, where the engine enforces it (not on
	// SQLite): varchar(n), char(n), numeric(p,s) and int's range.
	sized := pg || my
	vc := func(fl *Field, n int) *Field {
		if sized {
			fl.MaxLength = n
		}
		return fl
	}
	ch := func(fl *Field, n int) *Field {
		if sized {
			fl.MaxLength, fl.Padded = n, true
		}
		return fl
	}
	dec := func(fl *Field, p, sc int) *Field {
		if sized {
			fl.Precision, fl.Scale = p, sc
		}
		return fl
	}
	i32 := func(fl *Field) *Field {
		if sized {
			fl.Minimum, fl.Maximum = ptr(int64(-1<<31)), ptr(int64(1<<31-1))
		}
		return fl
	}
	myOnly := func(fl *Field, change func(*Field) *Field) *Field {
		if my {
			return change(fl)
		}
		return fl
	}
	blob := pick("BLOB", "bytea", "blob")
	return []*Entity{
		{Name: "1st_quarter", Plural: "1st_quarters", Table: "1st-quarter",
			KeyNote: "the table has no primary key",
			Fields: []*Field{myOnly(f("region", Text, true), func(fl *Field) *Field { return vc(fl, 50) }),
				myOnly(f("total", Number, true), func(fl *Field) *Field { return dec(fl, 12, 2) })}},
		{Name: "active_product", Plural: "active_products", Table: "active_products", View: true,
			Fields: []*Field{f("id", Integer, viewNullable),
				vc(with(f("sku", Text, viewNullable), func(fl *Field) {
					if my {
						fl.Description = "Stock keeping unit." // MariaDB shows the table column's comment
					}
				}), 20),
				myOnly(f("name", Text, viewNullable), func(fl *Field) *Field { return vc(fl, 200) })}},
		{Name: "category", Plural: "categories", Table: "categories", Key: "id", NaturalKey: "name",
			Description: comment("Product groups."),
			Fields: []*Field{i32(id(Integer)), myOnly(f("name", Text, false), func(fl *Field) *Field { return vc(fl, 100) }),
				with(f("description", Text, true), func(fl *Field) { fl.Description = comment("Shown to shoppers.") })}},
		{Name: "country", Plural: "countries", Table: "countries", Key: "code",
			Fields: []*Field{ch(f("code", Text, false), 2), myOnly(f("name", Text, false), func(fl *Field) *Field { return vc(fl, 100) })}},
		{Name: "customer", Plural: "customers", Table: "customers", Key: "id", NaturalKey: "email",
			Fields: []*Field{myOnly(with(f("id", uuid, false), func(fl *Field) { fl.HasDefault = pg }), func(fl *Field) *Field { return ch(fl, 36) }),
				myOnly(f("email", Text, false), func(fl *Field) *Field { return vc(fl, 200) }),
				myOnly(f("name", Text, true), func(fl *Field) *Field { return vc(fl, 200) })}},
		{Name: "order_item", Plural: "order_items", Table: "order items",
			KeyNote: "its primary key has 2 columns (order_id, line)",
			Fields: []*Field{i32(f("order_id", Integer, false)), i32(f("line", Integer, false)),
				with(f("product_id", Integer, false), func(fl *Field) { fl.References = &Reference{Entity: "product", Field: "id"} }),
				i32(def(f("quantity", Integer, false)))}},
		{Name: "product", Plural: "products", Table: "products", Key: "id", NaturalKey: "sku",
			Description: strings.TrimSpace(comment("Things we sell.") + ` Columns left out, their types not served: "picture" (` +
				blob + `).`),
			Unserved: []Column{{Name: "picture", Type: blob}},
			Fields: []*Field{
				id(Integer),
				vc(with(f("sku", Text, false), func(fl *Field) { fl.Description = comment("Stock keeping unit.") }), 20),
				myOnly(f("name", Text, false), func(fl *Field) *Field { return vc(fl, 200) }),
				f("description", Text, true),
				dec(def(f("price", Number, false)), 10, 2),
				def(f("in_stock", Boolean, false)),
				i32(with(f("category_id", Integer, true), func(fl *Field) { fl.References = &Reference{Entity: "category", Field: "id"} })),
				with(def(f("status", Text, false)), func(fl *Field) { fl.Enum = status }),
				with(def(f("created_at", Timestamp, false)), func(fl *Field) {
					if engine == MySQL { // TIMESTAMP keeps whole seconds
						fl.TimeStep = time.Second
					}
				}),
				f("released", Date, true),
				dec(with(f("price_with_tax", Number, true), func(fl *Field) { fl.Generated = true }), 10, 2),
			}},
		{Name: "select", Plural: "selects", Table: "select", Key: "id",
			Fields: []*Field{
				i32(with(f("id", Integer, false), func(fl *Field) {
					fl.Generated, fl.HasDefault = engine == SQLite, engine == SQLite // only SQLite's INTEGER PRIMARY KEY numbers itself
				})),
				f("from", Text, true),
				with(f("order_date", Date, true), func(fl *Field) { fl.Column = "Order Date" }),
				ch(with(f("country", Text, true), func(fl *Field) { fl.References = &Reference{Entity: "country", Field: "code"} }), 2),
			}},
	}
}

func TestIntrospect(t *testing.T) {
	forEachShop(t, func(t *testing.T, db *sql.DB, engine Engine) {
		got, err := Introspect(t.Context(), db, engine, nil)
		want := shopModel(engine)
		if engine == PostgreSQL { // PostgreSQL's entities name their schema: see IntrospectOptions.Schema
			for _, e := range want {
				e.Schema = currentSchema(t, db, engine)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Introspect (-want +got):\n%s", diff)
		}
	})
}

func TestIntrospectOptions(t *testing.T) {
	forEachShop(t, func(t *testing.T, db *sql.DB, engine Engine) {
		schema := currentSchema(t, db, engine)
		got, err := Introspect(t.Context(), db, engine, &IntrospectOptions{
			Schema:         schema,
			Tables:         []string{"products", "categories", "order items"},
			ExcludeTables:  []string{"order items"},
			ExcludeColumns: []string{"description", "products.created_at", "categories.name"},
		})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range got {
			if e.Schema != schema {
				t.Errorf("%s: Schema %q, want %q", e.Name, e.Schema, schema)
			}
			names = append(names, e.Name+":")
			for _, f := range e.Fields {
				names[len(names)-1] += " " + f.Name
			}
		}
		want := []string{
			"category: id",
			"product: id sku name price in_stock category_id status released price_with_tax",
		}
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("entities and fields (-want +got):\n%s", diff)
		}
		if len(got) > 0 && got[0].NaturalKey != "" {
			t.Errorf("category's natural key is %q, but its column is excluded", got[0].NaturalKey)
		}
	})
}

// forEachShop runs f in parallel on each engine, in a fresh schema
// holding the shop's tables.
func forEachShop(t *testing.T, f func(t *testing.T, db *sql.DB, engine Engine)) {
	for _, eng := range dbtest.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			engine := Engine(eng.Name)
			db := eng.Open(t)
			execDDL(t, db, shopDDL[engine])
			f(t, db, engine)
		})
	}
}

func currentSchema(t *testing.T, db *sql.DB, engine Engine) string {
	t.Helper()
	q := map[Engine]string{SQLite: "SELECT 'main'", PostgreSQL: "SELECT current_schema()", MySQL: "SELECT DATABASE()"}[engine]
	var s string
	if err := db.QueryRowContext(t.Context(), q).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestIntrospectEmpty(t *testing.T) {
	for _, eng := range dbtest.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			got, err := Introspect(context.Background(), eng.Open(t), Engine(eng.Name), nil)
			if err != nil || len(got) != 0 {
				t.Errorf("Introspect of an empty schema = %v, %v; want none, nil", got, err)
			}
		})
	}
}

func TestIntrospectUnknownEngine(t *testing.T) {
	_, err := Introspect(t.Context(), dbtest.SQLite(t), "oracle", nil)
	if err == nil || !strings.Contains(err.Error(), `unknown engine "oracle"`) {
		t.Errorf("Introspect with engine oracle: %v", err)
	}
}

func TestIntrospectNameCollisions(t *testing.T) {
	db := dbtest.SQLite(t)
	execDDL(t, db, []string{
		`CREATE TABLE product (id INTEGER PRIMARY KEY)`,
		`CREATE TABLE products (id INTEGER PRIMARY KEY, "Name" TEXT, "na me" TEXT, "na-me" TEXT,
			part TEXT NOT NULL, ex TEXT NOT NULL, maybe TEXT UNIQUE, code TEXT NOT NULL, alt TEXT NOT NULL UNIQUE)`,
		`CREATE UNIQUE INDEX products_code ON products (code)`,
		`CREATE UNIQUE INDEX products_part ON products (part) WHERE part <> ''`,
		`CREATE UNIQUE INDEX products_expr ON products (lower(ex))`,
		`CREATE TABLE blobs (data BLOB, other)`, // nothing served: no entity
		`CREATE TABLE products_fts_like (x TEXT)`,
		`CREATE VIRTUAL TABLE docs USING fts5(body)`, // virtual and shadow tables are no entities
	})
	got, err := Introspect(t.Context(), db, SQLite, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		names = append(names, e.Table+"="+e.Name+"/"+e.Plural+" natural="+e.NaturalKey)
	}
	// The first table in name order keeps the name; a partial or
	// expression unique index makes no natural key.
	want := []string{"product=product/products natural=", "products=product_2/products_2 natural=code",
		"products_fts_like=products_fts_like/products_fts_likes natural="}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	var fields []string
	for _, f := range got[1].Fields {
		fields = append(fields, f.Name+"="+f.Column)
	}
	wantFields := []string{"id=id", "Name=Name", "na_me=na me", "na_me_2=na-me", "part=part", "ex=ex", "maybe=maybe", "code=code", "alt=alt"}
	if diff := cmp.Diff(wantFields, fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

func TestIntrospectMissing(t *testing.T) {
	forEachShop(t, func(t *testing.T, db *sql.DB, engine Engine) {
		_, err := Introspect(t.Context(), db, engine, &IntrospectOptions{Schema: "no_such_schema_x"})
		if want := `entity: no schema "no_such_schema_x"`; err == nil || err.Error() != want {
			t.Errorf("Introspect of a missing schema: %v, want %q", err, want)
		}
		_, err = Introspect(t.Context(), db, engine, &IntrospectOptions{Tables: []string{"products", "prodcuts"}})
		if want := `entity: no table or view "prodcuts" to introspect`; err == nil || err.Error() != want {
			t.Errorf("Introspect of a missing table: %v, want %q", err, want)
		}
	})
}

// fieldSummary is "name type nullable generated default" per field.
func fieldSummary(e *Entity) []string {
	var out []string
	for _, f := range e.Fields {
		out = append(out, fmt.Sprintf("%s %d null=%v gen=%v def=%v enum=%v", f.Name, f.Type, f.Nullable, f.Generated, f.HasDefault, f.Enum))
	}
	return out
}

func TestIntrospectPostgresKinds(t *testing.T) {
	db := dbtest.Postgres(t)
	other := dbtest.PostgresSchema(t, db) + "_other"
	t.Cleanup(func() { _, _ = db.ExecContext(context.Background(), "DROP SCHEMA IF EXISTS "+other+" CASCADE") })
	execDDL(t, db, []string{
		`CREATE DOMAIN sku_text AS varchar(20) CHECK (VALUE ~ '^[A-Z]')`,
		`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`,
		`CREATE DOMAIN mood_d AS mood`,
		`CREATE SCHEMA ` + other,
		`CREATE TABLE ` + other + `.owners (id int PRIMARY KEY)`,
		`CREATE TABLE items (id int GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, sku sku_text NOT NULL, m mood_d,
			owner int REFERENCES ` + other + `.owners(id), tags text[], doc jsonb, span interval, price money)`,
		`CREATE UNIQUE INDEX items_sku ON items (sku)`,
		`CREATE TABLE events (id bigint NOT NULL, at date NOT NULL, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)`,
		`CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')`,
		`CREATE MATERIALIZED VIEW item_skus AS SELECT id, sku FROM items`,
	})
	es, err := Introspect(t.Context(), db, PostgreSQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, fmt.Sprintf("%s key=%q natural=%q view=%v note=%q: %s", e.Table, e.Key, e.NaturalKey, e.View, e.KeyNote, e.Description))
		got = append(got, fieldSummary(e)...)
	}
	want := []string{
		`events key="" natural="" view=false note="its primary key has 2 columns (id, at)": `,
		"id 2 null=false gen=false def=false enum=[]",
		"at 6 null=false gen=false def=false enum=[]",
		`item_skus key="" natural="" view=true note="": `,
		"id 2 null=true gen=false def=false enum=[]",
		"sku 1 null=true gen=false def=false enum=[]",
		`items key="id" natural="sku" view=false note="": Columns left out, their types not served: "span" (interval), "price" (money).`,
		"id 2 null=false gen=true def=true enum=[]",
		"sku 1 null=false gen=false def=false enum=[]",
		"m 1 null=true gen=false def=false enum=[sad ok happy]",
		"owner 2 null=true gen=false def=false enum=[]", // its reference is to another schema: none
		"tags 9 null=true gen=false def=false enum=[]",
		"doc 8 null=true gen=false def=false enum=[]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Introspect (-want +got):\n%s", diff)
	}
	for _, f := range es[2].Fields {
		if f.References != nil {
			t.Errorf("%s refers to %+v, in another schema", f.Name, f.References)
		}
	}
	if f := es[2].Field("sku"); f.MaxLength != 20 || f.Padded {
		t.Errorf("sku, a domain over varchar(20): MaxLength %d, Padded %v", f.MaxLength, f.Padded)
	}
	if f := es[2].Field("tags"); f.Items != Text || f.Sortable {
		t.Errorf("tags, a text[]: Items %s, Sortable %v", f.Items, f.Sortable)
	}
	wantUnserved := []Column{{"span", "interval"}, {"price", "money"}}
	if diff := cmp.Diff(wantUnserved, es[2].Unserved); diff != "" {
		t.Errorf("Unserved (-want +got):\n%s", diff)
	}
}

func TestIntrospectMySQLKinds(t *testing.T) {
	db := dbtest.MySQL(t)
	execDDL(t, db, []string{
		"CREATE TABLE things (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, code VARCHAR(10) NOT NULL," +
			" flags SET('a','b'), doc JSON, raw VARBINARY(10), at TIME, y YEAR, label ENUM('it''s','x,y') NOT NULL," +
			" tiny TINYINT, ok BOOL, ts DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6), prefix VARCHAR(200) NOT NULL," +
			" UNIQUE KEY (prefix(10)), UNIQUE KEY (code))",
	})
	es, err := Introspect(t.Context(), db, MySQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := append([]string{es[0].Key + "|" + es[0].NaturalKey + "|" + es[0].Description}, fieldSummary(es[0])...)
	want := []string{
		`id|code|Columns left out, their types not served: "flags" (set('a','b')), "raw" (varbinary(10)), "at" (time), "y" (year(4)).`,
		"id 2 null=false gen=true def=true enum=[]",
		"code 1 null=false gen=false def=false enum=[]",
		"doc 8 null=true gen=false def=false enum=[]", // MariaDB's JSON is LONGTEXT with a json_valid CHECK
		"label 1 null=false gen=false def=false enum=[it's x,y]",
		"tiny 2 null=true gen=false def=false enum=[]",
		"ok 4 null=true gen=false def=false enum=[]",
		"ts 5 null=true gen=false def=true enum=[]",
		"prefix 1 null=false gen=false def=false enum=[]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Introspect (-want +got):\n%s", diff)
	}
}
