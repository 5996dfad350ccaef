package entity_test

import (
	"database/sql"
	"strings"
	"testing"
)

// TestAttackOutOfRangeValues writes values the JSON schema lets through
// but a column cannot hold: an integer too wide for a 32-bit column, a
// number too wide for NUMERIC(12,2), timestamps outside years 1 to 9999
// (year 0, or year 10000 once made UTC). Each is written, or refused as
// invalid naming the field at fault or none; never a masked failure,
// never another field blamed.
func TestAttackOutOfRangeValues(t *testing.T) {
	cases := []struct{ field, value string }{
		{"stock", `3000000000`},
		{"stock", `9223372036854775807`},
		{"cost", `1e300`},
		{"created_at", `"0000-01-01T00:00:00Z"`},
		{"created_at", `"0001-01-01T00:00:00+01:00"`},
		{"created_at", `"9999-12-31T23:59:59-01:00"`},
	}
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		for _, tc := range cases {
			args := `{"sku":"R-1","name":"x","` + tc.field + `":` + tc.value + `}`
			o := c.attempt("create_product", args)
			clean(t, args, o)
			if !o.refused {
				if strings.HasPrefix(tc.field, "created") {
					t.Errorf("%s = %s; want a refusal: the year is outside 1 to 9999", args, o.raw)
				}
				c.ok("delete_product", `{"sku":"R-1"}`)
				continue
			}
			if !strings.HasPrefix(o.text, "invalid: ") {
				t.Errorf("%s refused as %q; want invalid", args, o.text)
			}
			for _, other := range []string{"sku", "name"} {
				if strings.HasPrefix(o.text, "invalid: "+other+":") {
					t.Errorf("%s refused as %q: it blames %s, which was fine", args, o.text, other)
				}
			}
		}
	})
}
