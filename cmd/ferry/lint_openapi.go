package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry/openapi"
)

// lintOpenAPIHelp is the help of ferry lint -openapi.
const lintOpenAPIHelp = `usage: ferry lint -openapi FILE|URL [-operations ids,tags] [-ignore id,...]

lint -openapi reports, before anyone serves a document, what a model would
see of its operations as ferry serve -openapi serves them: every tool's
problems under the rules of ferry lint (missing or short descriptions,
schemas that are not portable, name clashes, ...), the operations that
cannot be served [openapi-unservable], and what the conversion changed or
left out of an operation [openapi-changed]. It ends with the count of
tools and operations on stderr, and exits 1 when it found any problem.

`

// lintOpenAPIRequested reports whether a lint command line asks for
// -openapi.
func lintOpenAPIRequested(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		return strings.HasPrefix(a, "-") && name == "openapi"
	})
}

// lintOpenAPI lints the tools an OpenAPI document's operations become.
func lintOpenAPI(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	doc := fs.String("openapi", "", "the OpenAPI document: a file or an http(s) URL")
	var sel, ignore []string
	fs.Func("operations", "the operations ferry serve would serve: ids, tags or \"METHOD /path\" patterns, comma-separated, \"!\" to leave out", listFlag(&sel))
	fs.Func("ignore", "leave out the rules `id,id...` (repeatable)", listFlag(&ignore))
	if err := parseFlags(fs, args, lintOpenAPIHelp, e.stdout, e.stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef(fs, lintOpenAPIHelp, e, "lint -openapi takes no TARGET (got %q)", fs.Arg(0))
	}
	skip, err := ignoredRules(ignore)
	if err != nil {
		return usagef(fs, lintOpenAPIHelp, e, "%v", err)
	}
	d, err := openapi.Load(ctx, *doc)
	if err != nil {
		return err
	}
	tools, err := d.Tools(&openapi.Options{Select: sel})
	if err != nil {
		return err
	}
	var ls listing
	var problems []problem
	for _, t := range tools {
		if t.Err != nil {
			problems = append(problems, problem{kind: "operation", name: t.Operation.String(), rule: "openapi-unservable", msg: "cannot be served: " + t.Err.Error()})
			continue
		}
		for _, n := range t.Notes {
			problems = append(problems, problem{kind: "tool", name: t.Tool.Name, rule: "openapi-changed", msg: n})
		}
		ls.tools = append(ls.tools, wireOf(t))
	}
	problems = append(problems, lintListing(ls)...)
	n := 0
	for _, p := range problems {
		if !skip[p.rule] {
			fmt.Fprintln(e.stdout, p)
			n++
		}
	}
	counted := fmt.Sprintf("%d tools from %d of the %d operations of %s", len(ls.tools), len(tools), len(d.Operations()), *doc)
	if n > 0 {
		return &exitError{code: exitFailed, err: fmt.Errorf("lint: %d problems in %s", n, counted)}
	}
	fmt.Fprintf(e.stderr, "ferry: lint: no problems in %s\n", counted)
	return nil
}

// wireOf is a derived tool as tools/list would send it.
func wireOf(t *openapi.Tool) json.RawMessage {
	tl := t.Tool
	schemaOf := func(s any, raw json.RawMessage) json.RawMessage {
		if raw != nil {
			return raw
		}
		data, _ := json.Marshal(s)
		return data
	}
	w := map[string]any{
		"name": tl.Name, "description": tl.Description,
		"inputSchema": schemaOf(tl.InputSchema, tl.RawInputSchema),
		"annotations": map[string]any{
			"readOnlyHint": tl.ReadOnly, "destructiveHint": !tl.ReadOnly && !tl.Additive,
			"idempotentHint": tl.ReadOnly || tl.Idempotent, "openWorldHint": !tl.ClosedWorld,
		},
	}
	if tl.Title != "" {
		w["title"] = tl.Title
	}
	if tl.OutputSchema != nil || tl.RawOutputSchema != nil {
		w["outputSchema"] = schemaOf(tl.OutputSchema, tl.RawOutputSchema)
	}
	data, _ := json.Marshal(w)
	return data
}
