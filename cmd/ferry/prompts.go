package main

import (
	"context"
	"encoding/json"

	"github.com/ferry-mcp/ferry/client"
)

const promptsHelp = `usage: ferry prompts [flags] TARGET
       ferry prompts [flags] -- COMMAND [ARGS...]

prompts lists the prompts of an MCP server: {"prompts": [...]} on stdout,
every prompt as the server sent it, all pages read. "ferry prompt" gets
one.

` + targetHelp

// prompts lists a server's prompts as JSON.
func prompts(ctx context.Context, args []string, e *env) error {
	return listCommand(ctx, args, e, "prompts", promptsHelp, "; to get a prompt: ferry prompt TARGET NAME", (*session).ListPrompts,
		func(p *client.Prompt) json.RawMessage { return p.Raw })
}
