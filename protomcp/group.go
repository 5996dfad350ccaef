package protomcp

import (
	"strings"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/toolname"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ServiceGroup returns the group of the tools of the service whose short
// name is name, when their [ToolSpec.Groups] is nil: the name without a
// "Service" suffix, in snake_case, so that WeatherService is "weather"
// and OrderHistoryService is "order_history". It returns "" (no group)
// for a name that gives no valid group name ([ferry.ValidGroupName]).
func ServiceGroup(name protoreflect.Name) string {
	n := string(name)
	if base, ok := strings.CutSuffix(n, "Service"); ok && base != "" {
		n = base
	}
	g := toolname.SnakeCase(n)
	if ferry.ValidGroupName(g) != nil {
		return ""
	}
	return g
}
