package shop

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Two seeds give the same rows, in the numbers Counts says.
func TestSeedIsDeterministic(t *testing.T) {
	t.Parallel()
	a := openSeeded(t)
	b := openSeeded(t)
	da, db := dump(t, a), dump(t, b)
	if diff := cmp.Diff(da, db); diff != "" {
		t.Fatalf("two seeds differ (-first +second):\n%s", diff)
	}
	n := counts()
	for table, want := range map[string]int{"products": n.Products, "customers": n.Customers, "orders": n.Orders} {
		if got := len(da[table]); got != want {
			t.Errorf("%s: %d rows, want %d", table, got, want)
		}
	}
	if lines := len(da["order_lines"]); lines < n.Orders || lines > 4*n.Orders {
		t.Errorf("%d order lines for %d orders", lines, n.Orders)
	}
	// Every order's total is the sum of its lines.
	if bad := count(t, a, `SELECT COUNT(*) FROM orders o WHERE total_cents !=
		(SELECT SUM(qty * unit_price_cents) FROM order_lines WHERE order_id = o.id)`); bad != 0 {
		t.Errorf("%d orders whose total is not the sum of their lines", bad)
	}
}
