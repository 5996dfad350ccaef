package dsn_test

import (
	"fmt"

	"github.com/ferry-mcp/ferry/cmd/ferry/internal/dsn"
)

func ExampleParse() {
	d, err := dsn.Parse("mysql://shop:s%40cret@db.internal:3306/shop?tls=true", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Engine, d.Display)

	_, err = dsn.Parse("mysql://shop@db.internal/shop?multiStatements=true", nil)
	fmt.Println(err)
	// Output:
	// mysql mysql://shop:xxxxx@db.internal:3306/shop?tls=true
	// the MySQL URL has parameter "multiStatements", which ferry serve does not take (tls and charset are allowed)
}
