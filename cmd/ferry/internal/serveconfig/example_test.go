package serveconfig_test

import (
	"fmt"

	"github.com/ferry-mcp/ferry/cmd/ferry/internal/serveconfig"
)

func ExampleParse() {
	c, err := serveconfig.Parse("serve.yaml", []byte(`tables:
  products:
    description: Products the shop sells.
    hidden: [cost_price]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Tables["products"].Description, c.HiddenColumns())

	_, err = serveconfig.Parse("serve.yaml", []byte("tables:\n  products:\n    hiden: [cost_price]\n"))
	fmt.Println(err)
	// Output:
	// Products the shop sells. [products.cost_price]
	// serve.yaml:3:5: unknown key "hiden" in table products (known: access, aggregate, description, fields, filter, hidden, natural_key, search, sort, timeout)
}
