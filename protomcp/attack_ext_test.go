package protomcp_test

import (
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/schema"
)

// A request of many bad items is refused with a bounded list: the first
// schema.MaxErrors problems and one line counting the rest, as the root's
// validator answers, whether the decoder or protovalidate finds them.
func TestManyBadItemsGiveABoundedRefusal(t *testing.T) {
	m := newShopServer(t, nil)
	const n = 20000
	for name, item := range map[string]string{
		"decoding":   `{"sku":7,"quantity":1}`,
		"validation": `{"sku":"ABC","quantity":0}`,
	} {
		args := `{"customerEmail":"a@example.com","lines":[` + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + `]}`
		r := m.call(t, "place_order", args)
		if !r.IsError {
			t.Fatalf("%s: got %+v", name, r)
		}
		lines := strings.Count(r.Text, "\n- ")
		if lines != schema.MaxErrors+1 {
			t.Errorf("%s: the refusal has %d lines, want %d", name, lines, schema.MaxErrors+1)
		}
		if want := "- and 19900 more violations, not listed"; !strings.HasSuffix(r.Text, want) {
			t.Errorf("%s: the refusal ends %q, want %q", name, r.Text[max(0, len(r.Text)-80):], want)
		}
	}
	if m.calls.Load() != 0 {
		t.Errorf("the implementation ran")
	}
}
