package entity_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// A column whose name CEL cannot write (the reserved word in, a name led
// by a digit) is not offered to filters anywhere: every field the list
// tool's description, the filter argument and the entity resource name as
// filterable works in a filter, and the description says which fields
// cannot be filtered and why.
func TestFilterableFieldsAreNameableInCEL(t *testing.T) {
	ddl := map[string]string{
		"sqlite":   `CREATE TABLE i21types_odd_items (id INTEGER PRIMARY KEY, "in" TEXT, "1abc" TEXT, ok TEXT)`,
		"postgres": `CREATE TABLE i21types_odd_items (id integer PRIMARY KEY, "in" text, "1abc" text, ok text)`,
		"mysql":    "CREATE TABLE i21types_odd_items (id INT PRIMARY KEY, `in` TEXT, `1abc` TEXT, ok TEXT)",
	}
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			execAll(t, db, ddl[e.Name])
			c, served := introspected(t, db)
			list := toolsOf(t, c)["list_i21types_odd_items"]
			desc := list.Description
			const lead = "filter takes a CEL expression over "
			i := strings.Index(desc, lead)
			if i < 0 {
				t.Fatalf("description: %q", desc)
			}
			named, _, _ := strings.Cut(desc[i+len(lead):], ".")
			named, _, _ = strings.Cut(named, ";")
			var fields []string
			for f := range strings.SplitSeq(named, ", ") {
				fields = append(fields, strings.TrimSpace(f))
			}
			for _, f := range served[0].Fields {
				if f.Filterable && !strings.Contains(named, f.Name) {
					fields = append(fields, f.Name) // the entity as served says it is filterable
				}
			}
			for _, f := range fields {
				filter := f + ` != "x"`
				if fl := served[0].Field(f); fl != nil && fl.Type == entity.Integer {
					filter = f + " > 0"
				}
				args, _ := json.Marshal(map[string]string{"filter": filter})
				if r := c.call("list_i21types_odd_items", string(args)); r.IsError {
					t.Errorf("%s is offered as filterable, but filter %s is refused: %s", f, filter, r.text())
				}
			}
			if !strings.Contains(desc, "in and 1abc cannot be filtered") {
				t.Errorf("description does not say that in and 1abc cannot be filtered: %q", desc)
			}
			raw, perr := c.rpc("resources/read", "", `{"uri":"shop://entities/i21types_odd_item",`+meta+`}`)
			if perr == nil && strings.Contains(string(raw), `"1abc"],`) {
				t.Errorf("the entity resource lists 1abc as filterable: %s", raw)
			}
		})
	}
}

// A filter comparing a date field with a quoted string is refused in the
// field's own terms: it names the field as a date, as the field list
// does, and says how to write one.
func TestDateFilterRefusalSaysHowToWriteADate(t *testing.T) {
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			execAll(t, db, `CREATE TABLE i21types_days (id INTEGER PRIMARY KEY, due DATE, at TIMESTAMP NULL)`)
			c, _ := introspected(t, db)
			for _, tc := range []struct{ filter, want string }{
				{`due == "2024-05-01"`, `due is a date`},
				{`due > "2024-05-01"`, `due is a date`},
				{`"2024-05-01" < due`, `due is a date`},
				{`at > "2024-05-01T10:00:00Z"`, `at is a timestamp`},
			} {
				args, _ := json.Marshal(map[string]string{"filter": tc.filter})
				msg, _ := refusalOf(t, c, "list_i21types_days", string(args))
				if !strings.Contains(msg, tc.want) || strings.Contains(msg, "timestamp and text") && strings.Contains(tc.want, "date") {
					t.Errorf("filter %s: %q; want it to say %q", tc.filter, msg, tc.want)
				}
				hint := `date("2024-05-01")`
				if strings.Contains(tc.want, "timestamp") {
					hint = `timestamp("2024-05-01T10:00:00Z")`
				}
				if !strings.Contains(msg, hint) {
					t.Errorf("filter %s: %q; want the hint %s", tc.filter, msg, hint)
				}
			}
		})
	}
}

// A filter may compare two filterable fields, with CEL's meaning of a
// null (an ordering keeps no null row, negated or not), and a field the
// entity does not filter on is refused on the other side as on either.
func TestFilterComparesTwoFields(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		seed(t, c, 8)
		for _, tt := range []struct{ filter, want string }{
			{`stock > cost`, "P-5 P-7 P-8"},
			{`cost < stock`, "P-5 P-7 P-8"},
			{`!(stock <= cost)`, "P-5 P-7 P-8"},
			{`stock <= cost`, "P-1 P-2 P-4"},
			{`stock <= cost || stock == null`, "P-1 P-2 P-3 P-4 P-6"},
			{`name == sku`, ""},
			{`name != sku`, "P-1 P-2 P-3 P-4 P-5 P-6 P-7 P-8"},
			{`stock == stock`, "P-1 P-2 P-3 P-4 P-5 P-6 P-7 P-8"},
		} {
			p := listOf(t, c.ok("list_products", fmt.Sprintf(`{"filter":%q}`, tt.filter)))
			if d := cmp.Diff(strings.Fields(tt.want), skus(p)); d != "" {
				t.Errorf("filter %s (-want +got):\n%s", tt.filter, d)
			}
		}
		for _, bad := range []string{`name == created_by`, `created_by == name`, `name < tenant`} {
			r := c.call("list_products", fmt.Sprintf(`{"filter":%q}`, bad))
			if !r.IsError || !strings.Contains(r.text(), "unknown field") {
				t.Errorf("filter %s = %q; want a refusal naming the unknown field", bad, r.text())
			}
		}
		for _, bad := range []string{`stock == cost`, `name < cost`, `created_at > active`} {
			r := c.call("list_products", fmt.Sprintf(`{"filter":%q}`, bad))
			if !r.IsError || !strings.Contains(r.text(), "compare fields of the same type") {
				t.Errorf("filter %s = %q; want a refusal saying to compare fields of the same type", bad, r.text())
			}
		}
	})
}
