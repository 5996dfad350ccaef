package main

import (
	"context"
	"encoding/json"

	"github.com/ferry-mcp/ferry/client"
)

const toolsHelp = `usage: ferry tools [flags] TARGET
       ferry tools [flags] -- COMMAND [ARGS...]

tools lists the tools of an MCP server: {"tools": [...]} on stdout, every
tool as the server sent it, all pages read.

` + targetHelp

// tools lists a server's tools as JSON.
func tools(ctx context.Context, args []string, e *env) error {
	return listCommand(ctx, args, e, "tools", toolsHelp, "", (*session).ListTools,
		func(t *client.Tool) json.RawMessage { return t.Raw })
}
