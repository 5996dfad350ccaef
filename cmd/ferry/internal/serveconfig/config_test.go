package serveconfig

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/entity"
	"github.com/google/go-cmp/cmp"
)

const full = `tables:
  products:
    description: What we sell.
    natural_key: sku
    hidden: [cost]
    filter: [name]
    sort: []
    search: [name]
    aggregate: [id, sku]
    timeout: 1m30s
    fields:
      name: The display name.
  "order items": {}
`

func TestParseReadsEverySetting(t *testing.T) {
	c, err := Parse("s.yaml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"products", "order items"}, c.Order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	p := c.Tables["products"]
	if p.Description != "What we sell." || p.NaturalKey.Value != "sku" || p.NaturalKey.Line != 4 {
		t.Errorf("products = %+v", p)
	}
	if p.Timeout != 90*time.Second || c.Tables["order items"].Timeout != 0 {
		t.Errorf("timeouts: products %v, order items %v", p.Timeout, c.Tables["order items"].Timeout)
	}
	if p.Sort == nil || len(p.Sort) != 0 || c.Tables["order items"].Filter != nil {
		t.Errorf("an empty list must be given-but-empty and an absent one nil: sort %v, filter %v", p.Sort, c.Tables["order items"].Filter)
	}
	if diff := cmp.Diff([]string{"products.cost"}, c.HiddenColumns()); diff != "" {
		t.Errorf("hidden (-want +got):\n%s", diff)
	}
}

func TestParseRefusesWhatItDoesNotKnow(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"", "s.yaml: the file is empty"},
		{"tables: {}\n---\ntables: {}\n", "s.yaml:2: a second YAML document"},
		{"tables:\n  p:\n    description: 12\n", "s.yaml:3:18: table p: description must be text"},
		{"tables:\n  p:\n    description: '  '\n", "s.yaml:3:18: table p: description is empty"},
		{"tables:\n  p:\n    filter: [a, a]\n", `s.yaml:3:17: table p: filter names "a" twice`},
		{"tables:\n  p:\n    filter: [[a]]\n", "s.yaml:3:14: table p: filter must list column names"},
		{"tables:\n  p:\n    fields:\n      a: [x]\n", "s.yaml:4:10: table p fields: a must be text"},
		{"tables:\n  p:\n    <<: {description: x}\n", "merge keys"},
		{"tables:\n  p:\n    timeout: soon\n", `s.yaml:3:14: table p: timeout "soon" must be a duration such as 30s or 2m`},
		{"tables:\n  p:\n    timeout: -1s\n", `table p: timeout "-1s" must be a duration`},
		{"tables:\n  p:\n    timeout: 2h\n", "above 0 and at most 1h0m0s"},
		{"tables:\n  p:\n    timeout: [1s]\n", "table p: timeout must be a duration"},
		{"tables: x\n", "s.yaml:1:9: tables must be a mapping"},
		{"- tables\n", "s.yaml:1:1: the file must be a mapping"},
		{"tables:\n  ? [a]\n  : {}\n", "a key of tables must be a plain name"},
	} {
		_, err := Parse("s.yaml", []byte(tt.yaml))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v; want an error with %q", tt.yaml, err, tt.want)
		}
	}
}

func product() *entity.Entity {
	return &entity.Entity{Name: "product", Plural: "products", Table: "products", Key: "id", Fields: []*entity.Field{
		{Name: "id", Column: "id", Type: entity.Integer, Filterable: true, Sortable: true},
		{Name: "sku", Column: "sku", Type: entity.Text, Filterable: true, Sortable: true},
		{Name: "name", Column: "name", Type: entity.Text, Filterable: true, Sortable: true},
		{Name: "active", Column: "active", Type: entity.Boolean, Filterable: true},
	}}
}

func TestApplySetsTheFlags(t *testing.T) {
	c, err := Parse("s.yaml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	e := product()
	search, err := c.Tables["products"].Apply(e, []string{"id", "sku", "name", "cost", "picture"})
	if err != nil {
		t.Fatal(err)
	}
	type flags struct{ Filter, Sort, Search, Aggregate bool }
	got := map[string]flags{}
	for _, f := range e.Fields {
		got[f.Name] = flags{f.Filterable, f.Sortable, f.Searchable, f.Aggregatable}
	}
	want := map[string]flags{"id": {Aggregate: true}, "sku": {Aggregate: true}, "name": {Filter: true, Search: true}, "active": {}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"name"}, search); diff != "" {
		t.Errorf("search (-want +got):\n%s", diff)
	}
	if e.Description != "What we sell." || e.NaturalKey != "sku" || e.Field("name").Description != "The display name." {
		t.Errorf("entity = %+v", e)
	}
}

func TestApplyRefusesUnknownNames(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"tables:\n  products:\n    natural_key: id\n", `s.yaml:3:18: natural_key "id" is the primary key already`},
		{"tables:\n  products:\n    sort: [picture]\n", `s.yaml:3:12: sort names "picture", a column whose type is not served`},
		{"tables:\n  products:\n    fields:\n      nmae: x\n", `s.yaml:4:7: table products has no column "nmae" (its columns: id, sku, name, picture)`},
		{"tables:\n  products:\n    aggregate: [secret]\n", `s.yaml:3:17: table products has no column "secret" (its columns: id, sku, name, picture)`},
		{"tables:\n  products:\n    aggregate: [picture]\n", `s.yaml:3:17: aggregate names "picture", a column whose type is not served`},
		{"tables:\n  products:\n    aggregate: [active]\n", `s.yaml:3:17: aggregate names "active", which is boolean; aggregates take integers and numbers (sum, avg, min, max), text, dates and timestamps (min, max)`},
		{"tables:\n  products:\n    aggregate: []\n", `s.yaml:2:3: aggregate: [] names no field; list the fields to sum, average or take the least and greatest of (integers, numbers, text, dates, timestamps), or leave the key out`},
	} {
		c, err := Parse("s.yaml", []byte(tt.yaml))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Tables["products"].Apply(product(), []string{"id", "sku", "name", "picture"})
		if err == nil || err.Error() != tt.want {
			t.Errorf("Apply(%q) = %v; want %q", tt.yaml, err, tt.want)
		}
	}
}

// Parse never panics, whatever the bytes.
func FuzzParse(f *testing.F) {
	f.Add([]byte(full))
	f.Add([]byte("tables:\n  a: &x {}\n  b: *x\n"))
	f.Add([]byte("tables: [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f.yaml", data)
		if err == nil && c == nil {
			t.Fatal("no config and no error")
		}
	})
}

// A list as long as the file allows parses in linear time: the repeated
// name check is a set, not a scan of the names so far (which took minutes
// for a 1 MiB file).
func TestParseLongListIsLinear(t *testing.T) {
	list := func(size int) (string, int) {
		var b strings.Builder
		b.WriteString("tables:\n  t:\n    hidden: [")
		n := 0
		for ; b.Len() < size-64; n++ {
			fmt.Fprintf(&b, "c%d,", n)
		}
		b.WriteString("last]\n")
		return b.String(), n + 1
	}
	// Four times the input takes about four times as long when the check
	// is a set, sixteen when it scans. Each size's fastest of three runs
	// is compared, so that a busy machine slows both alike rather than
	// failing an absolute limit.
	fastest := func(size int) time.Duration {
		doc, n := list(size)
		best := time.Duration(1<<63 - 1)
		for range 3 {
			start := time.Now()
			c, err := Parse("s.yaml", []byte(doc))
			best = min(best, time.Since(start))
			if err != nil {
				t.Fatal(err)
			}
			if got := len(c.Tables["t"].Hidden); got != n {
				t.Fatalf("hidden has %d names; want %d", got, n)
			}
		}
		return best
	}
	small, large := fastest(MaxBytes/4), fastest(MaxBytes)
	if ratio := float64(large) / float64(small); ratio > 10 {
		t.Errorf("four times the input took %.1f times as long (%v vs %v): parsing a long list is not linear", ratio, large, small)
	}
}
