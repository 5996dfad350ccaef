package main

import (
	"context"

	"github.com/ferry-mcp/ferry/client"
)

const readHelp = `usage: ferry read [flags] TARGET URI
       ferry read [flags] URI -- COMMAND [ARGS...]

read reads the resource URI of an MCP server and prints the server's
result ({"contents": [...]}) on stdout. "ferry resources" lists the
server's resources and the templates of the URIs it reads.

  ferry read http://127.0.0.1:8080/mcp shop://policies

` + targetHelp

// read reads one resource and prints the server's result.
func read(ctx context.Context, args []string, e *env) error {
	fs, f, t, rest, err := parseCommand("read", readHelp, args, e, nil)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef(fs, readHelp, e, "want one URI after TARGET, have %d arguments", len(rest))
	}
	uri := rest[0]
	return withSession(ctx, t, f, e, func(ctx context.Context, s *session) error {
		s.invalidHint = `; check the URI against "ferry resources" (its resources and templates)`
		res, err := ask(ctx, s, "reading "+uri, func(ctx context.Context) (*client.ReadResult, error) {
			return s.ReadResource(ctx, uri)
		})
		if err != nil {
			return err
		}
		return printJSON(e.stdout, res.Raw)
	})
}
