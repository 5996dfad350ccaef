package toolname_test

import (
	"fmt"

	"github.com/ferry-mcp/ferry/toolname"
)

func Example() {
	fmt.Println(toolname.SnakeCase("GetHTTPStatus"))
	fmt.Println(toolname.Check("get_http_status"))
	fmt.Println(toolname.Check("get status"))
	// Output:
	// get_http_status
	// <nil>
	// name has ' '; use only A-Z, a-z, 0-9, '_', '-' and '.'
}
