package ferry_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ferry-mcp/ferry"
)

// addModernFixtures adds the tools of the transcripts that guard the
// 2026-07-28 details: a question under a key the handler chose, and an
// argument mirrored in an Mcp-Param header.
func addModernFixtures(srv *ferry.Server) {
	srv.AddTool(ferry.Tool{
		Name:        "greet_user",
		Description: "Asks the user's name under the key user_name, then greets.",
	}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		res, err := ferry.Elicit(ferry.WithInputKey(ctx, "user_name"), &ferry.ElicitParams{
			Message:         "What is your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		})
		if err != nil {
			return nil, err
		}
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(fmt.Sprintf("Hello, %v!", res.Content["name"]))}}, nil
	})
	srv.AddTool(ferry.Tool{
		Name:        "route",
		Description: "Runs in a region and with a priority that clients mirror in headers.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"region":{"type":"string","x-mcp-header":"Region"},` +
			`"priority":{"type":"integer","x-mcp-header":"Priority"}},"required":["region"]}`),
	}, func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("routed " + string(req.Arguments))}}, nil
	})
}
