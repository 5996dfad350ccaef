package schema_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/ferry-mcp/ferry/schema"
)

// JoinPath writes a path as the validator writes the paths of its errors,
// for every kind of property name, so that layers that check arguments
// themselves (protomcp) locate their errors alike.
func TestJoinPathIsTheValidatorsForm(t *testing.T) {
	for _, name := range []string{"sku", "a b", "x.y", "é", "$ref", "@type", "1", "a-b_c", `q"uote`, "[0]", "日本"} {
		s := schema.Object(schema.Required("outer", schema.Object(schema.Required(name, schema.Integer("")))))
		v, err := schema.Compile(s, schema.Strict)
		if err != nil {
			t.Fatal(err)
		}
		_, errs := v.Validate([]byte(`{"outer":{` + strconv.Quote(name) + `:"x"}}`))
		if len(errs) != 1 {
			t.Fatalf("%q: the validator says %v", name, errs)
		}
		if got := schema.JoinPath(schema.JoinPath("", "outer"), name); got != errs[0].Path {
			t.Errorf("%q: JoinPath writes %s, the validator %s", name, got, errs[0].Path)
		}
	}
}

func ExampleJoinPath() {
	p := schema.JoinPath("", "items") + "[2]"
	fmt.Println(schema.JoinPath(p, "sku"))
	fmt.Println(schema.JoinPath(p, "unit price"))
	// Output:
	// items[2].sku
	// items[2]["unit price"]
}
