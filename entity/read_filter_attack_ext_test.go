package entity_test

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// outcome is how a server answered an attack: a result, a refusal (a
// tool error result), or a protocol error with its code.
type outcome struct {
	raw     json.RawMessage
	text    string
	refused bool
	code    int
	message string
}

// attempt calls a tool and never fails the test itself: the caller
// judges the outcome.
func (c *client) attempt(name, args string) outcome {
	c.t.Helper()
	raw, perr := c.rpc("tools/call", name, `{"name":"`+name+`","arguments":`+args+`,`+meta+`}`)
	if perr != nil {
		return outcome{code: perr.Code, message: perr.Message}
	}
	var r result
	if err := json.Unmarshal(raw, &r); err != nil {
		c.t.Fatalf("%s: %s: %v", name, raw, err)
	}
	return outcome{raw: r.Structured, text: r.text(), refused: r.IsError}
}

// clean fails the test if the outcome is a masked failure: a protocol
// error other than invalid params (-32602), or a refusal that is not one
// of the refusal codes a caller can act on.
func clean(t *testing.T, what string, o outcome) {
	t.Helper()
	switch {
	case o.code != 0 && o.code != -32602:
		t.Errorf("%s: protocol error %d %q: a masked failure", what, o.code, o.message)
	case o.refused && !hasAnyPrefix(o.text, "invalid:", "invalid arguments:", "not-found:", "conflict:", "forbidden:", "unavailable:"):
		t.Errorf("%s: refusal %q has no refusal code", what, o.text)
	}
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TestAttackFilterStrings sends filters an attacker would write: CEL
// comments, escapes that spell quotes, bytes and raw literals, macros and
// functions the translator does not serve, conversions, arithmetic,
// fields outside the whitelist or in another case, and very long or deep
// input. Each one is a clean "invalid: filter" refusal or keeps exactly
// the rows CEL means; the tables are unchanged.
func TestAttackFilterStrings(t *testing.T) {
	type want struct {
		expr string
		skus []string // nil: refused
	}
	// seed(6): P-1 "Item 1" .. P-4 "item 4"; stock 1,2,null,4,5,null.
	cases := []want{
		{`name == "Item 1" // || true`, []string{"P-1"}},
		{"name == \"Item 1\"\n// ) OR 1=1 --", []string{"P-1"}},
		{`name == "Item 1" /* */ || true`, nil},
		{`name == "\u0027 OR \u00271\u0027=\u00271"`, []string{}},
		{`name == "\x27; DROP TABLE products; --"`, []string{}},
		{`name == "\042 OR 1=1 --"`, []string{}},
		{`name == "\U0001F600"`, []string{}},
		{`name == "\uD800"`, nil},
		{`name == "Item\u00a01"`, []string{}},
		{`name == "Item 1\u0000"`, nil},
		{`name == "Item 1\x00"`, nil},
		{`name == b"Item 1"`, nil},
		{`name == b"\x27"`, nil},
		{`name == r"Item 1"`, []string{"P-1"}},
		{`name == R'Item 2'`, []string{"P-2"}},
		{`name == '''Item 1'''`, []string{"P-1"}},
		{`name == """Item 2"""`, []string{"P-2"}},
		{`name == r"\x27"`, []string{}},
		{`has(name)`, nil},
		{`has(p.name)`, nil},
		{`[1, 2].exists(x, x == stock)`, nil},
		{`[1].all(x, true)`, nil},
		{`name.matches(".*")`, nil},
		{`size(name) > 3`, nil},
		{`name.size() > 3`, nil},
		{`dyn(name) == "Item 1"`, nil},
		{`string(stock) == "1"`, nil},
		{`int(name) == 1`, nil},
		{`name + "x" == "Item 1x"`, nil},
		{`stock + 1 == 2`, nil},
		{`stock == 1 ? true : false`, nil},
		{`{"a": 1}.a == 1`, nil},
		{`Name == "Item 1"`, nil},
		{`NAME == "Item 1"`, nil},
		{`sku == "P-1"`, []string{"P-1"}}, // keys are always filterable
		{`SKU == "P-1"`, nil},
		{`tenant == ""`, nil},
		{`created_by == null`, nil},
		{`id == 1`, []string{"P-1"}},
		{`Id == 1`, nil},
		{`name == "Item 1"; DROP TABLE products`, nil},
		{`name == "Item 1") OR (1 == 1`, nil},
		{`cost == 1e400`, nil},
		{`stock == 9223372036854775808`, nil},
		{`stock == -9223372036854775808`, []string{}},
		{`stock > 18446744073709551615u`, []string{}},
		{`stock == 1 || stock == 2`, []string{"P-1", "P-2"}},
		{`name in ["Item 1", "Item 2", "x' OR '1'='1"]`, []string{"P-1", "P-2"}},
		{`name.contains("%") || name.contains("_") || name.contains("*")`, []string{}},
		{`name.startsWith("Item")`, []string{"P-1", "P-2", "P-3", "P-5", "P-6"}},
		{`name.lowerAscii() == "item 4"`, []string{"P-4"}},
		{`name == "Item 1" && true`, []string{"P-1"}},
		{`true`, []string{"P-1", "P-2", "P-3", "P-4", "P-5", "P-6"}},
		{`false || !true`, []string{}},
		{`stock == null`, []string{"P-3", "P-6"}},
		{`stock != 1`, []string{"P-2", "P-3", "P-4", "P-5", "P-6"}},
		{`name == "` + strings.Repeat(`\'`, 1100) + `"`, nil},
		{strings.Repeat("(", 200) + "true" + strings.Repeat(")", 200), nil},
		// CEL's parser folds repeated negations, so these are not deep.
		{strings.Repeat("!", 500) + "true", []string{"P-1", "P-2", "P-3", "P-4", "P-5", "P-6"}},
		{strings.Repeat("!", 501) + "(stock == 1)", []string{"P-2", "P-3", "P-4", "P-5", "P-6"}},
		{strings.Repeat("!(", 40) + "true" + strings.Repeat(")", 40), nil},
		{strings.Repeat(`stock == 1 || `, 60) + "true", nil},
		{`name == "` + strings.Repeat("x", 3000) + `"`, nil},
	}
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		seed(t, c, 6)
		before := checksum(t, db)
		for _, tc := range cases {
			o := c.attempt("list_products", `{"filter":`+jsonQuote(tc.expr)+`}`)
			what := "filter " + clip(tc.expr, 60)
			clean(t, what, o)
			switch {
			case tc.skus == nil && !o.refused && o.code == 0:
				t.Errorf("%s = %s; want a refusal", what, clip(string(o.raw), 200))
			case tc.skus == nil && o.refused && !hasAnyPrefix(o.text, "invalid: filter", "invalid arguments:\n- filter:"):
				t.Errorf("%s refused as %q; want invalid: filter", what, o.text)
			case tc.skus != nil && (o.refused || o.code != 0):
				t.Errorf("%s refused: %q %s", what, o.text, o.message)
			case tc.skus != nil:
				if d := cmp.Diff(tc.skus, skus(listOf(t, o.raw))); d != "" {
					t.Errorf("%s rows (-want +got):\n%s", what, d)
				}
			}
		}
		if after := checksum(t, db); after != before {
			t.Errorf("tables changed by filters:\n%s\n%s", before, after)
		}
	})
}

// clip shortens s for a test message.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
