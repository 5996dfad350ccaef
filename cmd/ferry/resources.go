package main

import (
	"context"
	"encoding/json"

	"github.com/ferry-mcp/ferry/client"
)

const resourcesHelp = `usage: ferry resources [flags] TARGET
       ferry resources [flags] -- COMMAND [ARGS...]

resources lists the resources of an MCP server and the templates of the
URIs it reads: {"resources": [...], "resourceTemplates": [...]} on stdout,
each as the server sent it, all pages read. A server that offers no
resources lists none. "ferry read" reads one, a template's URI with its
variables filled in (shop://orders/{id} read as shop://orders/7).

` + targetHelp

// resources lists a server's resources and resource templates as JSON.
func resources(ctx context.Context, args []string, e *env) error {
	fs, f, t, rest, err := parseCommand("resources", resourcesHelp, args, e, nil)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(fs, resourcesHelp, e, "unexpected argument %q after TARGET; to read a resource: ferry read TARGET URI", rest[0])
	}
	return withSession(ctx, t, f, e, func(ctx context.Context, s *session) error {
		offered := capabilities(s.ServerInfo().Capabilities)("resources")
		list, err := optional(ctx, s, "listing resources", offered, s.ListResources)
		if err != nil {
			return err
		}
		templates, err := optional(ctx, s, "listing resource templates", offered, s.ListResourceTemplates)
		if err != nil {
			return err
		}
		out := struct {
			Resources []json.RawMessage `json:"resources"`
			Templates []json.RawMessage `json:"resourceTemplates"`
		}{
			raws(list, func(r *client.Resource) json.RawMessage { return r.Raw }),
			raws(templates, func(r *client.ResourceTemplate) json.RawMessage { return r.Raw }),
		}
		data, err := json.Marshal(out)
		if err != nil {
			return protocolError(err)
		}
		return printJSON(e.stdout, data)
	})
}
