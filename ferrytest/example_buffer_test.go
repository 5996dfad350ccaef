package ferrytest_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// A Buffer keeps a server's log for the test to read: here the record
// behind a tool's masked failure, which the result's reference names.
func ExampleBuffer() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.done()

	logs := new(ferrytest.Buffer)
	srv := ferry.NewServer("printer", "1.0.0", &ferry.ServerOptions{Logger: logs.Logger()})
	srv.AddTool(ferry.Tool{Name: "print", Description: "Prints a page."},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			panic("out of paper")
		})
	res := ferrytest.NewClient(t, srv, nil).CallTool(t.Context(), "print", nil)
	for _, rec := range logs.Records(t, "tool failed unexpectedly") {
		ref, _ := rec["ref"].(string)
		fmt.Println(rec["level"], rec["tool"], strings.Contains(res.Text(), "(ref "+ref+")"))
	}
	// Output:
	// ERROR print true
}
