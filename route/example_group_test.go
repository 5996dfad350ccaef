package route_test

import (
	"fmt"

	"github.com/ferry-mcp/ferry/route"
)

// A route-bound tool that names no group is in its route's.
func ExampleRouteGroup() {
	fmt.Println(route.RouteGroup("GET /orders/{id}"))
	fmt.Println(route.RouteGroup("POST /api/v2/invoices/{id}/pay"))
	// Output:
	// orders
	// invoices
}
