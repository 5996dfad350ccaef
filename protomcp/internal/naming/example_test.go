package naming_test

import (
	"fmt"

	"github.com/ferry-mcp/ferry/protomcp/internal/naming"
)

// A method's tool name and title, from the same words.
func Example() {
	for _, m := range []string{"GetHTTPStatus", "ListOrdersV2", "get_v2_forecast"} {
		fmt.Printf("%s: %s %q %q\n", m, naming.Words(m), naming.Snake(m), naming.Title(m))
	}
	fmt.Println(naming.CheckPrefix("shop_"), naming.CheckPrefix("shop:") != nil)
	// Output:
	// GetHTTPStatus: [Get HTTP Status] "get_http_status" "Get HTTP status"
	// ListOrdersV2: [List Orders V2] "list_orders_v2" "List orders v2"
	// get_v2_forecast: [get v2 forecast] "get_v2_forecast" "Get v2 forecast"
	// <nil> true
}
