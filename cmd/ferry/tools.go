package main

import (
	"context"
	"encoding/json"
	"flag"

	"github.com/ferry-mcp/ferry/client"
)

const toolsHelp = `usage: ferry tools [flags] TARGET
       ferry tools [flags] -- COMMAND [ARGS...]

tools lists the tools of an MCP server: {"tools": [...]} on stdout, every
tool as the server sent it, all pages read.

` + targetHelp

// tools lists a server's tools as JSON.
func tools(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	var f clientFlags
	f.register(fs)
	t, rest, err := parseTarget(fs, args, toolsHelp, e)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(fs, toolsHelp, e, "unexpected argument %q after TARGET", rest[0])
	}
	return withSession(ctx, t, &f, e, func(ctx context.Context, s *session) error {
		list, err := ask(ctx, s, "listing tools", s.ListTools)
		if err != nil {
			return err
		}
		return printList(e.stdout, "tools", raws(list, func(t *client.Tool) json.RawMessage { return t.Raw }))
	})
}
