package entity_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// A table whose primary key has several columns says once, in its list
// tool's description, that it is read-only and why it has no get tool.
func TestCompositeKeyDescribedOnce(t *testing.T) {
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			execAll(t, db, `CREATE TABLE i21types_lines (order_id INTEGER NOT NULL, line INTEGER NOT NULL, qty INTEGER,
				PRIMARY KEY (order_id, line))`)
			c, _ := introspected(t, db)
			tools := toolsOf(t, c)
			if _, ok := tools["get_i21types_line"]; ok {
				t.Fatal("a get tool for a table with a two-column key")
			}
			desc := tools["list_i21types_lines"].Description
			if n := len(regexp.MustCompile(`(?i)read.only|read tools only`).FindAllString(desc, -1)); n != 1 {
				t.Errorf("the description says %d times that the table is read-only: %q", n, desc)
			}
			if !strings.Contains(desc, "2 columns (order_id, line)") || !strings.Contains(desc, "no get tool") {
				t.Errorf("the description does not say why there is no get tool: %q", desc)
			}
		})
	}
}
