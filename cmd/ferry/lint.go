package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry/client"
)

// lintHelp is lint's usage; the rules are appended from lintRules.
const lintHelp = `usage: ferry lint [flags] TARGET
       ferry lint [flags] -- COMMAND [ARGS...]
       ferry lint -openapi FILE|URL [-operations ids,tags] (see ferry lint -openapi -h)

lint lists the portability and quality problems of any MCP server's tools,
prompts, resources and resource templates, one line each on stdout:

  tool get_order: description is 12 characters; say what it does ... [description-short]

and exits 1 when it found any, 0 (saying "no problems" on stderr) when it
found none. It applies from outside what Ferry checks at start-up (names,
duplicates, schemas clients reject, descriptions over 1024 characters,
schemas that are not JSON Schema), plus what makes a server hard for a
model or a client to use (missing hints, titles and descriptions,
descriptions too short to decide from, resources without a mimeType).
Each line ends with its rule's id; -ignore leaves rules out.

rules:
`

// lint lists the problems of a server's tools, prompts and resources.
func lint(ctx context.Context, args []string, e *env) error {
	if lintOpenAPIRequested(args) {
		return lintOpenAPI(ctx, args, e)
	}
	var ignore multiFlag
	help := lintUsage()
	fs, f, t, rest, err := parseCommand("lint", help, args, e, func(fs *flag.FlagSet) {
		fs.Var(&ignore, "ignore", "leave out the rules `id,id...` (repeatable)")
	})
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(fs, help, e, "unexpected argument %q after TARGET", rest[0])
	}
	skip, err := ignoredRules(ignore)
	if err != nil {
		return usagef(fs, help, e, "%v", err)
	}
	return withSession(ctx, t, f, e, func(ctx context.Context, s *session) error {
		ls, err := fetchListing(ctx, s)
		if err != nil {
			return err
		}
		n := 0
		for _, p := range lintListing(ls) {
			if !skip[p.rule] {
				fmt.Fprintln(e.stdout, p)
				n++
			}
		}
		counted := fmt.Sprintf("%d tools, %d prompts, %d resources, %d resource templates",
			len(ls.tools), len(ls.prompts), len(ls.resources), len(ls.templates))
		if n > 0 {
			return &exitError{code: exitFailed, err: fmt.Errorf("lint: %d problems in %s of %s", n, counted, t)}
		}
		fmt.Fprintf(s.stderr, "ferry: lint: no problems in %s of %s\n", counted, t)
		return nil
	})
}

// lintUsage is lint's help with its rules.
func lintUsage() string {
	var sb strings.Builder
	sb.WriteString(lintHelp)
	for _, r := range lintRules {
		fmt.Fprintf(&sb, "  %-29s %s\n", r.id, r.what)
	}
	sb.WriteString("\n" + targetHelp)
	return sb.String()
}

// ignoredRules parses -ignore's values into a set of rule ids.
func ignoredRules(values []string) (map[string]bool, error) {
	skip := map[string]bool{}
	for _, v := range values {
		for id := range strings.SplitSeq(v, ",") {
			id = strings.TrimSpace(id)
			if !slices.ContainsFunc(lintRules, func(r struct{ id, what string }) bool { return r.id == id }) {
				return nil, fmt.Errorf(`-ignore: no rule %q; "ferry lint -h" lists them`, id)
			}
			skip[id] = true
		}
	}
	return skip, nil
}

// fetchListing reads the server's tools, prompts, resources and resource
// templates. A list the server does not offer (not in its capabilities,
// or answered "method not found") is empty.
func fetchListing(ctx context.Context, s *session) (listing, error) {
	var ls listing
	offers := capabilities(s.ServerInfo().Capabilities)
	tools, err := optional(ctx, s, "listing tools", offers("tools"), s.ListTools)
	if err != nil {
		return ls, err
	}
	ls.tools = raws(tools, func(t *client.Tool) json.RawMessage { return t.Raw })
	prompts, err := optional(ctx, s, "listing prompts", offers("prompts"), s.ListPrompts)
	if err != nil {
		return ls, err
	}
	ls.prompts = raws(prompts, func(p *client.Prompt) json.RawMessage { return p.Raw })
	resources, err := optional(ctx, s, "listing resources", offers("resources"), s.ListResources)
	if err != nil {
		return ls, err
	}
	ls.resources = raws(resources, func(r *client.Resource) json.RawMessage { return r.Raw })
	templates, err := optional(ctx, s, "listing resource templates", offers("resources"), s.ListResourceTemplates)
	if err != nil {
		return ls, err
	}
	ls.templates = raws(templates, func(r *client.ResourceTemplate) json.RawMessage { return r.Raw })
	return ls, nil
}
