package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
)

// parseCommand parses the line of a command that talks to one server: the
// client flags and those more adds (more may be nil), then the target. It
// returns the flag set, the client flags, the target and the positional
// arguments after it. Its errors are usage errors, already printed.
func parseCommand(name, help string, args []string, e *env, more func(*flag.FlagSet)) (*flag.FlagSet, *clientFlags, target, []string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	f := &clientFlags{}
	f.register(fs)
	if more != nil {
		more(fs)
	}
	t, rest, err := parseTarget(fs, args, help, e)
	return fs, f, t, rest, err
}

// listCommand runs a command that lists one kind of item a server offers
// (tools, prompts): it takes no argument after the target (hint follows
// the usage error that says so) and prints {"key": [...]}, every item as
// the server sent it, all pages read.
func listCommand[T any](ctx context.Context, args []string, e *env, key, help, hint string,
	list func(*session, context.Context) ([]T, error), raw func(*T) json.RawMessage) error {
	fs, f, t, rest, err := parseCommand(key, help, args, e, nil)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef(fs, help, e, "unexpected argument %q after TARGET%s", rest[0], hint)
	}
	return withSession(ctx, t, f, e, func(ctx context.Context, s *session) error {
		items, err := ask(ctx, s, "listing "+key, func(ctx context.Context) ([]T, error) { return list(s, ctx) })
		if err != nil {
			return err
		}
		return printList(e.stdout, key, raws(items, raw))
	})
}

// parseTarget parses a client command's line (see parseClientArgs) and
// takes the target from it; it returns the target and the positional
// arguments after it. Its errors are usage errors, already printed.
func parseTarget(fs *flag.FlagSet, args []string, help string, e *env) (target, []string, error) {
	positional, command, err := parseClientArgs(fs, args, help, e)
	if err != nil {
		return target{}, nil, err
	}
	t, rest, err := splitTarget(positional, command)
	if err != nil {
		return target{}, nil, usagef(fs, help, e, "%v", err)
	}
	return t, rest, nil
}

// withSession connects to t, runs fn with the session and the command's
// context, and disconnects.
func withSession(ctx context.Context, t target, f *clientFlags, e *env, fn func(context.Context, *session) error) error {
	s, cctx, stop, err := dial(ctx, t, f, e)
	if err != nil {
		return err
	}
	defer stop()
	return fn(cctx, s)
}

// ask runs one request of the session: fn, with a progress line after a
// second, its failure turned into an exit error naming what it was doing.
func ask[T any](ctx context.Context, s *session, doing string, fn func(context.Context) (T, error)) (T, error) {
	done := s.progress(doing)
	v, err := fn(ctx)
	done()
	if err != nil {
		var zero T
		return zero, s.failure(ctx, doing, err)
	}
	return v, nil
}

// printJSON writes the JSON data indented, as one document ending in a
// newline, with the server's text that could drive a terminal escaped
// (see escapeJSON): the document decodes to the same values.
func printJSON(w io.Writer, data []byte) error {
	out, err := formatJSON(data)
	if err != nil {
		return protocolError(fmt.Errorf("the server's answer is not JSON: %w", err))
	}
	_, err = w.Write(out)
	return err
}

// formatJSON returns the JSON data as printJSON writes it.
func formatJSON(data []byte) ([]byte, error) {
	if !json.Valid(data) {
		var v any
		return nil, json.Unmarshal(data, &v) // says what is wrong
	}
	var buf bytes.Buffer
	// Indent keeps trailing white space, which may be a carriage return.
	if err := json.Indent(&buf, bytes.TrimRight(data, " \t\r\n"), "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return escapeJSON(buf.Bytes()), nil
}

// printList writes {"key": [items...]}, the items as the server sent them.
func printList(w io.Writer, key string, items []json.RawMessage) error {
	if items == nil {
		items = []json.RawMessage{}
	}
	data, err := json.Marshal(map[string][]json.RawMessage{key: items})
	if err != nil {
		return protocolError(fmt.Errorf("the server's %s are not JSON: %w", key, err))
	}
	return printJSON(w, data)
}

// raws returns the raw JSON of each item.
func raws[T any](items []T, raw func(*T) json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, len(items))
	for i := range items {
		out[i] = raw(&items[i])
	}
	return out
}

// capabilities returns whether the server's capabilities (raw JSON) name
// a capability; when they cannot be read, every capability is assumed.
func capabilities(raw json.RawMessage) func(string) bool {
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil || caps == nil {
		return func(string) bool { return true }
	}
	return func(name string) bool { return caps[name] != nil }
}

// optional runs a list request the server may not offer: nothing when
// offered is false or the server answers "method not found".
func optional[T any](ctx context.Context, s *session, doing string, offered bool, list func(context.Context) ([]T, error)) ([]T, error) {
	if !offered {
		return nil, nil
	}
	return ask(ctx, s, doing, func(ctx context.Context) ([]T, error) {
		items, err := list(ctx)
		var rpc *client.Error
		if errors.As(err, &rpc) && rpc.Code == ferry.CodeMethodNotFound {
			return nil, nil
		}
		return items, err
	})
}
