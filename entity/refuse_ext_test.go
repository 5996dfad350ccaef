package entity_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// Where a unique column's collation counts values equal that lookups,
// exact on every engine, tell apart ("A1" and "a1" under MariaDB's
// default collation or SQLite's NOCASE, "a1" and "a1 " under MariaDB's
// PAD SPACE), a conflict names the value the record holds, so that get
// finds the record the conflict is about.
func TestConflictNamesTheValueLookupsFind(t *testing.T) {
	ddl := map[string]string{
		"sqlite": `CREATE TABLE i21types_parts (id INTEGER PRIMARY KEY, sku TEXT COLLATE NOCASE NOT NULL UNIQUE)`,
		"mysql":  `CREATE TABLE i21types_parts (id BIGINT AUTO_INCREMENT PRIMARY KEY, sku VARCHAR(20) NOT NULL UNIQUE) COLLATE utf8mb4_general_ci`,
	}
	for _, e := range dbtest.Engines {
		if ddl[e.Name] == "" {
			continue // PostgreSQL's default collations are deterministic
		}
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			execAll(t, db, ddl[e.Name])
			c, _ := introspected(t, db)
			c.ok("create_i21types_part", `{"sku":"A1"}`)
			for _, sku := range []string{"a1", "a1 "} {
				if e.Name == "sqlite" && sku == "a1 " {
					continue // NOCASE keeps trailing spaces apart
				}
				args, _ := json.Marshal(map[string]string{"sku": sku})
				msg, path := refusalOf(t, c, "create_i21types_part", string(args))
				if path != "sku" || !strings.HasPrefix(msg, "conflict: ") {
					t.Errorf("create %q: %q at %q; want a conflict on sku", sku, msg, path)
					continue
				}
				// Whatever value the conflict names, get finds it.
				m := regexp.MustCompile(`sku ("(?:[^"\\]|\\.)*")`).FindAllStringSubmatch(msg, -1)
				if len(m) == 0 {
					t.Errorf("create %q: %q names no sku", sku, msg)
					continue
				}
				for _, named := range m {
					if r := c.call("get_i21types_part", `{"sku":`+named[1]+`}`); r.IsError {
						t.Errorf("create %q: %q; but get of sku %s: %s", sku, msg, named[1], r.text())
					}
				}
				if !strings.Contains(msg, `"A1"`) {
					t.Errorf("create %q: %q; want it to name the record's sku \"A1\"", sku, msg)
				}
			}
			b2 := record(t, c.ok("create_i21types_part", `{"sku":"B2"}`))
			args, _ := json.Marshal(map[string]any{"id": b2["id"], "sku": "a1"})
			msg, path := refusalOf(t, c, "update_i21types_part", string(args))
			if path != "sku" || !strings.Contains(msg, `"A1"`) {
				t.Errorf("update to a1: %q at %q; want a conflict naming \"A1\"", msg, path)
			}
		})
	}
}
