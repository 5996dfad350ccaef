package ferry_test

import (
	"encoding/json"
	"fmt"

	"github.com/ferry-mcp/ferry"
)

// An argument's allowed values and default have no place of their own in
// prompts/list, so they are appended to the description the client shows.
func ExamplePromptArgument_MarshalJSON() {
	arg := ferry.PromptArgument{Name: "span", Description: "How far back to look.",
		Values: []string{"1 day", "1 week"}, OnlyValues: true, Default: "1 week"}
	data, _ := json.Marshal(arg)
	fmt.Println(string(data))
	// Output: {"name":"span","description":"How far back to look. One of: 1 day, 1 week. Default: 1 week."}
}
