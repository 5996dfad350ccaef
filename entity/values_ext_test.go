package entity_test

import (
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// outputTypes reads a record tool's output schema: each field's JSON
// types ("number", or "number" and "null").
func outputTypes(t *testing.T, tool toolEntry) map[string][]string {
	t.Helper()
	var s struct {
		Properties struct {
			Data struct {
				Items struct {
					Properties map[string]struct {
						Type json.RawMessage `json:"type"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"data"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tool.OutputSchema, &s); err != nil {
		t.Fatalf("%s: %v", tool.OutputSchema, err)
	}
	out := map[string][]string{}
	for name, p := range s.Properties.Data.Items.Properties {
		var one string
		var many []string
		if json.Unmarshal(p.Type, &one) == nil {
			many = []string{one}
		} else if err := json.Unmarshal(p.Type, &many); err != nil {
			t.Fatalf("%s: type %s", name, p.Type)
		}
		out[name] = many
	}
	return out
}

// jsonType is the JSON type name of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case float64:
		return "number"
	case string:
		return "string"
	case bool:
		return "boolean"
	}
	return "object"
}

// A number JSON cannot write (NaN, Infinity, -Infinity) is served as
// null, the output schema says a number field may be null, and filters
// treat the value as null: == null finds it, an ordering skips it, on
// either side of a negation. MySQL and MariaDB hold no such numbers.
func TestNonFiniteNumbersServedAndFilteredAsNull(t *testing.T) {
	ddl := map[string][]string{
		"sqlite": {
			`CREATE TABLE i21types_measures (id INTEGER PRIMARY KEY, price REAL NOT NULL, ratio DOUBLE)`,
			`INSERT INTO i21types_measures VALUES (1, 1.5, 2.5), (2, 9e999, -9e999), (3, -9e999, NULL)`,
		},
		"postgres": {
			`CREATE TABLE i21types_measures (id integer PRIMARY KEY, price numeric NOT NULL, ratio double precision)`,
			`INSERT INTO i21types_measures VALUES (1, 1.5, 2.5), (2, 'NaN', 'Infinity'), (3, 'Infinity', 'NaN'), (4, '-Infinity', '-Infinity')`,
		},
	}
	for _, e := range dbtest.Engines {
		if ddl[e.Name] == nil {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			execAll(t, db, ddl[e.Name]...)
			c, _ := introspected(t, db)
			types := outputTypes(t, toolsOf(t, c)["list_i21types_measures"])
			v := listOf(t, c.ok("list_i21types_measures", `{"orderBy":"id"}`))
			if len(v.Data) < 3 {
				t.Fatalf("list = %v", v.Data)
			}
			for _, r := range v.Data {
				for _, f := range []string{"price", "ratio"} {
					if got := jsonType(r[f]); !slices.Contains(types[f], got) {
						t.Errorf("id %v: %s = %v (%s); the output schema says %v", r["id"], f, r[f], got, types[f])
					}
				}
				if r["id"] != 1.0 && r["price"] != nil {
					t.Errorf("id %v: price = %v; want null for a number JSON cannot hold", r["id"], r["price"])
				}
			}
			finite := []float64{1}
			nonFinite := []float64{2, 3}
			if e.Name == "postgres" {
				nonFinite = append(nonFinite, 4)
			}
			for _, tc := range []struct {
				filter string
				want   []float64
			}{
				{`price == null`, nonFinite},
				{`price != null`, finite},
				{`price > 1e308`, nil},
				{`price < -1e308`, nil},
				{`!(price < 0.0)`, finite},
				{`!(price > 1e308)`, finite},
				{`price != 1.5`, nonFinite},
				{`ratio == null`, nonFinite},
				{`ratio > 0.0`, finite},
				{`price in [1.5]`, finite},
				{`!(price in [1.5])`, nonFinite},
			} {
				args, _ := json.Marshal(map[string]string{"filter": tc.filter, "orderBy": "id"})
				var got []float64
				for _, r := range listOf(t, c.ok("list_i21types_measures", string(args))).Data {
					got = append(got, r["id"].(float64))
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("filter %s: ids %v, want %v", tc.filter, got, tc.want)
				}
			}
		})
	}
}

// A timestamp finer than a microsecond is refused by writes, as filters
// refuse it, rather than cut short silently.
func TestSubMicrosecondTimestampRefused(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		msg, path := refusalOf(t, c, "create_product", `{"sku":"A-1","name":"n","created_at":"2026-01-02T03:04:05.1234567Z"}`)
		if path != "created_at" || !strings.Contains(msg, "microsecond") {
			t.Errorf("create: %q at %q; want a refusal of created_at's precision", msg, path)
		}
		if got := record(t, c.ok("create_product", `{"sku":"A-1","name":"n","created_at":"2026-01-02T03:04:05.123456Z"}`)); got["created_at"] != "2026-01-02T03:04:05.123456Z" {
			t.Errorf("created_at = %v", got["created_at"])
		}
		msg, path = refusalOf(t, c, "update_product", `{"sku":"A-1","created_at":"2026-01-02T03:04:05.000000001Z"}`)
		if path != "created_at" || !strings.Contains(msg, "microsecond") {
			t.Errorf("update: %q at %q; want a refusal of created_at's precision", msg, path)
		}
		filter, _ := json.Marshal(map[string]string{"filter": `created_at == timestamp("2026-01-02T03:04:05.1234567Z")`})
		if msg, _ := refusalOf(t, c, "list_products", string(filter)); !strings.Contains(msg, "microsecond") {
			t.Errorf("filter: %q", msg)
		}
	})
}
