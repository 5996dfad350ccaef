package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ferry-mcp/ferry/client"
)

const callHelp = `usage: ferry call [flags] TARGET TOOL [JSON | -]
       ferry call [flags] TOOL [JSON | -] -- COMMAND [ARGS...]

call calls the tool TOOL of an MCP server with the arguments JSON (a JSON
object; "-" reads it from stdin until it ends, Ctrl-D at a terminal, at
most 16 MiB; none sends {}) and prints the server's result on stdout. A
tool that fails returns an error result ("isError": true): it is printed
too, and call exits 1. call cannot answer a tool's questions to the user
or the client's model (elicitation, sampling, roots): such a tool fails,
and call exits 1 saying so.

With -task, call runs the tool as a task of the tasks extension
(io.modelcontextprotocol/tasks, 2026-07-28 servers): the server answers
at once with the task, which call polls until it ends, printing each new
status on stderr (unless -quiet), and then prints the result as a plain
call does. A tool that does not run as a task is called plainly; a task
that fails or is cancelled exits 1; -timeout bounds the whole wait, and
past it the task is cancelled.

  ferry call http://127.0.0.1:8080/mcp get_order '{"id": 7}'
  echo '{"id": 7}' | ferry call http://127.0.0.1:8080/mcp get_order -
  ferry call -task -timeout 10m http://127.0.0.1:8080/mcp build_report

` + targetHelp

// call calls one tool and prints its result.
func call(ctx context.Context, args []string, e *env) error {
	var asTask bool
	fs, f, t, rest, err := parseCommand("call", callHelp, args, e, func(fs *flag.FlagSet) {
		fs.BoolVar(&asTask, "task", false, "run the tool as a task and poll it until it ends, printing its status")
	})
	if err != nil {
		return err
	}
	if len(rest) < 1 || len(rest) > 2 {
		return usagef(fs, callHelp, e, "want TOOL and at most one JSON argument after TARGET, have %d arguments", len(rest))
	}
	name := rest[0]
	arguments, _, err := jsonArguments(ctx, rest[1:], e, `{"id": 7}`)
	if err != nil {
		return argumentsError(fs, e, err)
	}
	return withSession(ctx, t, f, e, func(ctx context.Context, s *session) error {
		s.invalidHint = `; check the tool's name and arguments with "ferry tools"`
		res, err := ask(ctx, s, "calling "+name, func(ctx context.Context) (*client.ToolResult, error) {
			if asTask {
				return s.CallToolAsTask(ctx, name, arguments, s.taskProgress())
			}
			return s.CallTool(ctx, name, arguments)
		})
		if err != nil {
			return err
		}
		if err := printJSON(e.stdout, res.Raw); err != nil {
			return err
		}
		if res.IsError {
			return &exitError{code: exitFailed, err: fmt.Errorf("call: the tool %s returned an error result (printed on stdout)", displayName(name))}
		}
		return nil
	})
}

// jsonArguments returns the arguments of a tool or prompt from the
// command line, as JSON and as its members: a JSON object, "-" for
// stdin, or nothing for {}. Its errors say what is wrong and how to write
// the object, with example, quoted as a shell needs it.
func jsonArguments(ctx context.Context, rest []string, e *env, example string) (json.RawMessage, map[string]json.RawMessage, error) {
	if len(rest) == 0 {
		return json.RawMessage("{}"), map[string]json.RawMessage{}, nil
	}
	data, from := []byte(rest[0]), "the JSON argument"
	if rest[0] == "-" {
		var err error
		from = "stdin"
		if data, err = readStdin(ctx, e.stdin, maxStdin); err != nil {
			return nil, nil, err
		}
	}
	var obj map[string]json.RawMessage
	if err := decodeJSON(data, &obj); err != nil {
		var syntax *json.SyntaxError
		var kind *json.UnmarshalTypeError
		switch {
		case errors.As(err, &kind):
			return nil, nil, fmt.Errorf(`%s is JSON %s, not an object; write the arguments as {"name": value, ...}`, from, kind.Value)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, nil, fmt.Errorf(`%s is not JSON: it ends before the object does; quote it for the shell: '%s'`, from, example)
		case errors.As(err, &syntax):
			return nil, nil, fmt.Errorf("%s is not JSON (at byte %d: %w); quote it for the shell: '%s'", from, syntax.Offset, err, example)
		}
		return nil, nil, fmt.Errorf("%s is not one JSON object: %w", from, err)
	}
	if obj == nil {
		return nil, nil, fmt.Errorf(`%s is null, not an object; write the arguments as {"name": value, ...}`, from)
	}
	return json.RawMessage(data), obj, nil
}

// argumentsError prints a problem with a command's JSON arguments, and
// where to read the usage, on stderr, and returns errUsage. The usage
// itself would push the problem out of sight. An interrupt while reading
// them is returned as it is.
func argumentsError(fs *flag.FlagSet, e *env, err error) error {
	if errors.Is(err, errInterrupted) {
		return err
	}
	fmt.Fprintf(e.stderr, "ferry: %s: %v\n", fs.Name(), err)
	fmt.Fprintf(e.stderr, "ferry: \"ferry help %s\" shows the usage, with examples\n", fs.Name())
	return errUsage
}

// errInterrupted is the error of a command stopped by a signal before it
// connected.
var errInterrupted = errors.New("call: interrupted while reading the arguments from stdin")

// readStdin reads the arguments from r, up to limit bytes, until r ends
// or ctx is done: a terminal's stdin ends only with Ctrl-D, and the
// process's context has taken Ctrl-C over from the default of exiting.
func readStdin(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1) // the reader may outlive ctx; it never blocks on sending
	go func() {
		data, err := readAll(r, limit)
		done <- read{data, err}
	}()
	select {
	case <-ctx.Done():
		return nil, errInterrupted
	case rd := <-done:
		if rd.err != nil {
			return nil, fmt.Errorf("reading the arguments from stdin: %w", rd.err)
		}
		return rd.data, nil
	}
}

// taskProgress returns what prints a task's status on stderr as it
// changes, unless -quiet: its id first, then each new status and message.
func (s *session) taskProgress() func(*client.Task) {
	if s.flags.quiet {
		return nil
	}
	var last string
	return func(t *client.Task) {
		line := t.Status
		if t.StatusMessage != "" {
			line += ": " + t.StatusMessage
		}
		if line == last {
			return
		}
		if last == "" {
			fmt.Fprintf(s.stderr, "ferry: task %s\n", oneLine(t.ID))
		}
		last = line
		fmt.Fprintf(s.stderr, "ferry: task %s\n", oneLine(line))
	}
}
