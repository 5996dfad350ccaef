package protomcp

import (
	"strconv"
	"testing"

	"github.com/ferry-mcp/ferry/schema"
)

// The paths of protomcp's refusals are written as the root's validator
// writes them, for every kind of property name: both follow
// schema.JoinPath's rule.
func TestPathsAreWrittenAsTheRootWritesThem(t *testing.T) {
	for _, name := range []string{"sku", "a b", "x.y", "é", "$ref", "@type", "1", "a-b_c", `q"uote`, "[0]", "日本"} {
		s := schema.Object(schema.Required("outer", schema.Object(schema.Required(name, schema.ListOf(schema.Integer(""), "")))))
		v, err := schema.Compile(s, schema.Strict)
		if err != nil {
			t.Fatal(err)
		}
		doc := `{"outer":{` + strconv.Quote(name) + `:[1,"x"]}}`
		_, errs := v.Validate([]byte(doc))
		if len(errs) != 1 {
			t.Fatalf("%q: the root's validator says %v", name, errs)
		}
		if got := path("").field("outer").field(name).index(1).String(); got != errs[0].Path {
			t.Errorf("%q: protomcp writes %s, the root %s", name, got, errs[0].Path)
		}
	}
}
