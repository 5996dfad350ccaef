package entity_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// A char(n) value is served without the spaces the database pads it
// with, and a filter matches what is served: the value served finds its
// row, and the padded text does not. PostgreSQL returns char(n) padded
// unless told otherwise; MySQL strips the padding itself; SQLite keeps
// what it was given.
func TestPaddedTextServedAsFiltered(t *testing.T) {
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			execAll(t, db,
				`CREATE TABLE i21types_codes (id INTEGER PRIMARY KEY, code CHAR(5) NOT NULL UNIQUE, note CHAR(4))`,
				`INSERT INTO i21types_codes VALUES (1, 'ab', 'x'), (2, 'abc', NULL)`,
				`CREATE TABLE i21types_padded_keys (code CHAR(4) PRIMARY KEY, name VARCHAR(20) NOT NULL)`)
			c, _ := introspected(t, db)

			v := listOf(t, c.ok("list_i21types_codes", `{"orderBy":"id"}`))
			if len(v.Data) != 2 || v.Data[0]["code"] != "ab" || v.Data[0]["note"] != "x" || v.Data[1]["code"] != "abc" {
				t.Errorf("list = %v; want codes ab and abc served without padding", v.Data)
			}
			for _, tc := range []struct {
				filter string
				want   int
			}{
				{`code == "ab"`, 1},
				{`code == "ab   "`, 0},
				{`code.endsWith("b")`, 1},
				{`code.endsWith(" ")`, 0},
				{`note == "x"`, 1},
				{`code in ["ab", "abc"]`, 2},
			} {
				args, _ := json.Marshal(map[string]string{"filter": tc.filter})
				if got := listOf(t, c.ok("list_i21types_codes", string(args))); len(got.Data) != tc.want {
					t.Errorf("filter %s: %d rows, want %d", tc.filter, len(got.Data), tc.want)
				}
			}
			if got := record(t, c.ok("get_i21types_code", `{"code":"ab"}`)); got["id"] != 1.0 {
				t.Errorf("get by code ab = %v", got)
			}

			// A char(n) key is read back as written.
			got := record(t, c.ok("create_i21types_padded_key", `{"code":"k1","name":"one"}`))
			if got["code"] != "k1" {
				t.Errorf("created = %v; want code k1", got)
			}
			if got := record(t, c.ok("get_i21types_padded_key", `{"code":"k1"}`)); got["name"] != "one" {
				t.Errorf("get k1 = %v", got)
			}
			// Trailing spaces the column would drop are refused, not
			// dropped silently (SQLite keeps them: it pads nothing).
			create := `{"id":3,"code":"sp  "}`
			if e.Name == "sqlite" {
				c.ok("create_i21types_code", `{"code":"sp  "}`) // INTEGER PRIMARY KEY: SQLite numbers it
				return
			}
			msg := c.refused("create_i21types_code", create)
			if !strings.Contains(msg, "code:") || !strings.Contains(msg, "trailing spaces") {
				t.Errorf("create with trailing spaces: %q; want a refusal naming code and its trailing spaces", msg)
			}
		})
	}
}
