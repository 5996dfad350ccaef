package entity

import (
	"strings"
	"testing"
)

func orderTable(t testing.TB) *table {
	e, err := Of[outItem]()
	if err != nil {
		t.Fatal(err)
	}
	tb := &table{e: e, d: pgDialect{}, key: e.Field("id"), o: &Options{}}
	tb.initOrder()
	return tb
}

func TestParseOrder(t *testing.T) {
	tb := orderTable(t)
	terms, err := tb.parseOrder(" price DESC ,sku asc")
	if err != nil || len(terms) != 2 || terms[0].f.Name != "price" || !terms[0].desc || terms[1].desc {
		t.Fatalf("parseOrder = %+v, %v", terms, err)
	}
	if got := tb.orderSQL(terms, ""); got != ` ORDER BY t."price" DESC, CAST(t."sku" AS text) COLLATE "C", t."id"` {
		t.Errorf("orderSQL = %s", got)
	}
	if got := tb.orderSQL(nil, "rank"); got != ` ORDER BY rank, t."id"` {
		t.Errorf("orderSQL with a rank = %s", got)
	}
	if got := tb.orderSQL(nil, ""); got != ` ORDER BY t."id"` {
		t.Errorf("orderSQL with neither = %s", got)
	}
}

// FuzzParseOrder: whatever the text, parseOrder accepts only sortable
// fields, and the SQL it leads to holds nothing of the text but their
// names.
func FuzzParseOrder(f *testing.F) {
	for _, s := range []string{"price desc", "sku, price", "price; DROP", `"price"`, "price desc desc", ",", "note"} {
		f.Add(s)
	}
	tb := orderTable(f)
	f.Fuzz(func(t *testing.T, s string) {
		terms, err := tb.parseOrder(s)
		if err != nil {
			return
		}
		for _, o := range terms {
			if !o.f.Sortable {
				t.Fatalf("%q: %s is not sortable", s, o.f.Name)
			}
		}
		sql := tb.orderSQL(terms, "")
		for _, w := range strings.FieldsFunc(sql, func(r rune) bool { return strings.ContainsRune(` ,."()`, r) }) {
			switch w {
			case "ORDER", "BY", "DESC", "t", "price", "sku", "id", "CAST", "AS", "text", "COLLATE", "C":
			default:
				t.Fatalf("%q: unexpected word %q in %s", s, w, sql)
			}
		}
	})
}
