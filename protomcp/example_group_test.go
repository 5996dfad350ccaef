package protomcp_test

import (
	"fmt"

	"github.com/ferry-mcp/ferry/protomcp"
)

// A service's tools that name no group are in the service's.
func ExampleServiceGroup() {
	fmt.Println(protomcp.ServiceGroup("WeatherService"))
	fmt.Println(protomcp.ServiceGroup("OrderHistoryService"))
	// Output:
	// weather
	// order_history
}
