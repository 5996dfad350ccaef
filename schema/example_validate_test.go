package schema_test

import (
	"fmt"

	"github.com/ferry-mcp/ferry/schema"
)

func ExampleCompile() {
	s := &schema.Schema{
		Type:          "object",
		Closed:        true,
		PropertyOrder: []string{"sku", "qty", "express"},
		Properties: map[string]*schema.Schema{
			"sku":     {Type: "string", MaxLength: new(8)},
			"qty":     {Type: "integer", Minimum: new(1.0)},
			"express": {Type: "boolean"},
		},
		Required: []string{"sku", "qty"},
	}
	v, err := schema.Compile(s, schema.Unambiguous)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, errs := v.Validate([]byte(`{"sku":"AB-1","qty":"2","express":"true"}`))
	fmt.Println(string(out), errs == nil)

	_, errs = v.Validate([]byte(`{"sku":"AB-1-LONG-SKU","qty":0,"colour":"red"}`))
	fmt.Println(errs)
	// Output:
	// {"sku":"AB-1","qty":2,"express":true} true
	// sku: must be at most 8 characters, got 13
	// qty: must be at least 1, got 0
	// colour: is not allowed: unknown property "colour"; known properties: sku, qty, express
}

func ExamplePolicy() {
	number := &schema.Schema{Type: "number"}
	for _, p := range []schema.Policy{schema.Unambiguous, schema.Strict} {
		v, _ := schema.Compile(number, p)
		for _, in := range []string{`"£1,234.00"`, `"€1.234,50"`} {
			out, errs := v.Validate([]byte(in))
			if errs != nil {
				fmt.Printf("%s %s: %v\n", p, in, errs)
				continue
			}
			fmt.Printf("%s %s: %s\n", p, in, out)
		}
	}
	// Output:
	// unambiguous "£1,234.00": 1234.00
	// unambiguous "€1.234,50": expected a number, got "€1.234,50"
	// strict "£1,234.00": expected a number, got "£1,234.00"
	// strict "€1.234,50": expected a number, got "€1.234,50"
}
