package entity_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

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
