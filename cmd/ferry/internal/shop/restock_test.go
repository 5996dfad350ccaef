package shop

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// restock_report asks the API for each product and reports exactly the
// low ones, emptiest first, with what to reorder.
func TestRestockReport(t *testing.T) {
	t.Parallel()
	_, db, hs := newTestService(t)
	rows, err := db.QueryContext(t.Context(), "SELECT sku, name, stock, reorder_level FROM products WHERE category = 'tea' ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var skus []any
	want := RestockReport{Low: []RestockLine{}, OK: []string{}, Unknown: []string{"ZZZ-999"}}
	for rows.Next() {
		var l RestockLine
		if err := rows.Scan(&l.SKU, &l.Name, &l.Stock, &l.ReorderLevel); err != nil {
			t.Fatal(err)
		}
		skus = append(skus, l.SKU)
		if l.Stock < l.ReorderLevel {
			l.Reorder = 3*l.ReorderLevel - l.Stock
			want.Low = append(want.Low, l)
		} else {
			want.OK = append(want.OK, l.SKU)
		}
	}
	_ = rows.Close()
	if len(want.Low) == 0 || len(want.OK) == 0 {
		t.Fatalf("the seed has no low or no stocked tea: %+v", want)
	}
	for i := 1; i < len(want.Low); i++ { // emptiest first, stable
		for j := i; j > 0 && want.Low[j].Stock < want.Low[j-1].Stock; j-- {
			want.Low[j], want.Low[j-1] = want.Low[j-1], want.Low[j]
		}
	}
	r := call(t, hs, "restock_report", map[string]any{"skus": append(skus, "ZZZ-999", skus[0]), "target": 3})
	var got RestockReport
	if err := json.Unmarshal(r.StructuredContent, &got); err != nil || r.IsError {
		t.Fatalf("restock_report: %+v", r)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("restock_report (-want +got):\n%s", diff)
	}
}

// restock_report refuses SKUs that are not SKUs, naming each, before it
// asks the API anything: a path in a SKU never becomes a request, and the
// model reads what to fix instead of an unexpected failure.
func TestRestockReportRefusesMalformedSKUs(t *testing.T) {
	t.Parallel()
	_, _, hs := newTestService(t)
	r := call(t, hs, "restock_report", map[string]any{"skus": []any{"TEA-001", "../orders/1", "tea-002", "TEA-001/../../orders/1"}})
	want := `invalid: skus[1] "../orders/1", skus[2] "tea-002", skus[3] "TEA-001/../../orders/1" are not SKUs such as TEA-003; list_products finds them`
	if !r.IsError || len(r.Content) != 1 || r.Content[0].Text != want {
		t.Errorf("restock_report with malformed SKUs: %+v\nwant %q", r, want)
	}
}
