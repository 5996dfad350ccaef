package main

import (
	"context"
	"encoding/json"
	"flag"

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
	fs := flag.NewFlagSet("prompts", flag.ContinueOnError)
	var f clientFlags
	f.register(fs)
	t, rest, err := parseTarget(fs, args, promptsHelp, e)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(fs, promptsHelp, e, "unexpected argument %q after TARGET; to get a prompt: ferry prompt TARGET NAME", rest[0])
	}
	return withSession(ctx, t, &f, e, func(ctx context.Context, s *session) error {
		list, err := ask(ctx, s, "listing prompts", s.ListPrompts)
		if err != nil {
			return err
		}
		return printList(e.stdout, "prompts", raws(list, func(p *client.Prompt) json.RawMessage { return p.Raw }))
	})
}
