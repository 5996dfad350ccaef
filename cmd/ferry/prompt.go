package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/ferry-mcp/ferry/client"
)

const promptHelp = `usage: ferry prompt [flags] TARGET NAME [JSON | -]
       ferry prompt [flags] NAME [JSON | -] -- COMMAND [ARGS...]

prompt gets the prompt NAME of an MCP server, filled in with the
arguments JSON (a JSON object of strings; "-" reads it from stdin until
it ends, at most 16 MiB; none sends no arguments), and prints the
server's result ({"description": ..., "messages": [...]}) on stdout.
"ferry prompts" lists the prompts and their arguments.

  ferry prompt http://127.0.0.1:8080/mcp restock_plan '{"category": "tea"}'

` + targetHelp

// prompt gets one prompt and prints the server's result.
func prompt(ctx context.Context, args []string, e *env) error {
	fs, f, t, rest, err := parseCommand("prompt", promptHelp, args, e, nil)
	if err != nil {
		return err
	}
	if len(rest) < 1 || len(rest) > 2 {
		return usagef(fs, promptHelp, e, "want NAME and at most one JSON argument after TARGET, have %d arguments", len(rest))
	}
	name := rest[0]
	arguments, err := promptArguments(ctx, rest[1:], e)
	if err != nil {
		return argumentsError(fs, e, err)
	}
	return withSession(ctx, t, f, e, func(ctx context.Context, s *session) error {
		s.invalidHint = `; check the prompt's name and arguments with "ferry prompts"`
		res, err := ask(ctx, s, "getting the prompt "+name, func(ctx context.Context) (*client.PromptResult, error) {
			return s.GetPrompt(ctx, name, arguments)
		})
		if err != nil {
			return err
		}
		return printJSON(e.stdout, res.Raw)
	})
}

// promptArguments returns a prompt's arguments from the command line, as
// jsonArguments reads them; each must be a string, as the protocol has
// them.
func promptArguments(ctx context.Context, rest []string, e *env) (map[string]string, error) {
	_, obj, err := jsonArguments(ctx, rest, e, `{"id": "7"}`)
	if err != nil {
		return nil, err
	}
	from := "the JSON argument"
	if len(rest) > 0 && rest[0] == "-" {
		from = "stdin"
	}
	out := make(map[string]string, len(obj))
	for _, k := range slices.Sorted(mapKeys(obj)) {
		var v string
		if err := json.Unmarshal(obj[k], &v); err != nil {
			return nil, fmt.Errorf("%s's %q is %s, not a string; prompt arguments are strings: write {%q: %s}",
				from, k, shownJSON(obj[k]), k, strconv.Quote(shownJSON(obj[k])))
		}
		out[k] = v
	}
	return out, nil
}

// shownJSON is a JSON value as a message shows it: cut after 40
// characters.
func shownJSON(v json.RawMessage) string {
	if r := []rune(string(v)); len(r) > 40 {
		return string(r[:40]) + "..."
	}
	return string(v)
}
