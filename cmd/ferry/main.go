// Command ferry is Ferry's command-line tool: it runs the demo service,
// serves a database as MCP tools with no code, talks to any MCP server
// from a script, checks a server's tools for portability problems, and
// generates tool descriptions from Go doc comments.
//
//	ferry demo                  run the demo shop service (SQLite, nothing to install)
//	ferry serve -db URL         serve a database's tables as entity tools
//	ferry tools TARGET          list a server's tools as JSON
//	ferry call TARGET TOOL ARGS call a tool
//	ferry prompts TARGET        list a server's prompts
//	ferry prompt TARGET NAME ARGS  get a prompt
//	ferry resources TARGET      list a server's resources and resource templates
//	ferry read TARGET URI       read a resource
//	ferry lint TARGET           list the portability and quality problems of a server
//	ferry gen -type T [-dir .] [-out file]   write the tool descriptions of a type's methods
//	ferry install CLIENT NAME URL  add a server to Claude Code, Claude Desktop, Cursor or VS Code
//	ferry help [CMD]            print the help of ferry or of one command
//	ferry -version              print the version
//
// Every command takes -h. Exit codes: 0 success; 1 the command failed
// (for call: the tool returned an error result; for lint: problems were
// found); 2 the command line was wrong; 3 the server could not be reached
// or broke the protocol.
//
// # tools, call, prompts, prompt, resources, read, lint
//
// These talk to any MCP server. TARGET is an http:// or https:// URL of a
// Streamable HTTP endpoint, or "--" followed by the command line of a
// stdio server, which ends ferry's command line (the server's stderr goes
// to ferry's):
//
//	ferry tools http://127.0.0.1:8080/mcp
//	ferry call http://127.0.0.1:8080/mcp get_order '{"id": 7}'
//	echo '{"id": 7}' | ferry call get_order - -- ./shop-server --stdio
//	ferry prompt http://127.0.0.1:8080/mcp summarize_order '{"id": "7"}'
//	ferry resources http://127.0.0.1:8080/mcp
//	ferry read http://127.0.0.1:8080/mcp shop://catalog
//	ferry lint -- go run ./conformance/everything
//
// They print the server's JSON on stdout, indented, as one document
// ({"tools": [...]} with every page read, the tools/call result,
// {"resources": [...], "resourceTemplates": [...]}, the prompts/get or
// resources/read result), and errors on stderr in one line with a hint.
// What the server sends that could drive a terminal or disguise text
// (control characters, bidirectional overrides such as U+202E, zero-width
// characters, U+2028) is escaped: in the JSON as \u escapes, which decode
// to the same text, at a terminal and in a pipe alike; on stderr, a stdio
// server's own output included, as Go writes it in a string (\u202e).
// Flags may come before or after the other arguments (never after "--"):
//
//	-header 'Name: value'  add an HTTP header to every request (repeatable)
//	-header-env NAME       add the header line "Name: value" held by the environment variable NAME (repeatable)
//	-protocol VERSION      2026-07-28, 2025-11-25, 2025-06-18 or 2025-03-26; by default
//	                       server/discover (2026-07-28), falling back to initialize (legacy)
//	-timeout D             give up after D, connecting included (default 30s); the
//	                       command ends within D plus 1s, its time to end the session
//	-quiet                 no progress line ("ferry: connecting to ... ..." after a second)
//
// Secrets stay out of the command line through the environment:
// -header-env, and FERRY_TOKEN, which when set is sent as "Authorization:
// Bearer $FERRY_TOKEN" unless a header flag sets Authorization. call
// exits 1 when the tool returned an error result (printed on stdout), 2
// on malformed JSON arguments (one line saying what is wrong, and where
// the usage is), 3 when the server answered with a JSON-RPC error or
// could not be reached. prompt takes its arguments as call does, a JSON
// object whose values are strings.
//
// lint prints one line per problem of the server's tools, prompts,
// resources and resource templates, ending in the rule's id, and exits 1
// when it found any (-ignore id,... leaves rules out; "ferry lint -h"
// lists them):
//
//	tool get_order: description is 14 characters; say what it does and when to use it in at least 20 [description-short]
//
// # gen
//
// gen writes <type>_tools.go, named after the type lower-cased as stringer
// names its files (library_tools.go for Library, bookshelf_tools.go for
// BookShelf): a FerryTools method that describes the type's exported
// methods of the shape func(context.Context, In) (Out, error) as tools,
// for [ferry.AddMethods]. Each method's doc comment is its tool's
// description; a leading method name is dropped ("FindBooks searches
// books" becomes "Searches books"). The comment may end with directives,
// one per line:
//
//	//ferry:name search          the tool's name (default: the method's in snake case, find_books)
//	//ferry:title Search books   its display title
//	//ferry:readonly             it changes nothing
//	//ferry:idempotent           repeating a call has no further effect
//	//ferry:additive             its writes only add: they never destroy or overwrite data
//	//ferry:closedworld          it reaches nothing outside this service
//
// An unknown directive is an error (exit status 1). A method without a doc
// comment is written with an empty description, and gen names each such
// method in a warning on stderr but succeeds (exit status 0), so that a
// type can be generated while its docs are written; [ferry.AddMethods]
// reports an undescribed tool as a start-up problem. gen is meant for go
// generate:
//
//	//go:generate go run github.com/ferry-mcp/ferry/cmd/ferry gen -type Library
//
// The generated method has a pointer receiver, so that a type holding a
// mutex is never copied; pass a pointer to [ferry.AddMethods].
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	stop()
	os.Exit(code)
}

// env is what a command may touch of the process: its streams and its
// environment. Tests give their own.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// Exit codes, documented in the package comment.
const (
	exitOK       = 0
	exitFailed   = 1 // the command failed; for call, the tool returned an error result
	exitUsage    = 2
	exitProtocol = 3 // the server could not be reached or broke the protocol
)

// A command is one subcommand of ferry.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, e *env) error
}

// commands lists ferry's subcommands in the order help shows them. Each
// lives in the file named after it.
var commands = []command{
	{"demo", "run the demo shop service (SQLite, nothing to install)", demo},
	{"serve", "serve a database's tables as entity tools, with no code", serve},
	{"tools", "list the tools of an MCP server as JSON", tools},
	{"call", "call a tool of an MCP server", call},
	{"prompts", "list the prompts of an MCP server as JSON", prompts},
	{"prompt", "get a prompt of an MCP server, filled in with arguments", prompt},
	{"resources", "list the resources and resource templates of an MCP server as JSON", resources},
	{"read", "read a resource of an MCP server", read},
	{"lint", "list the portability and quality problems of an MCP server", lint},
	{"gen", "write the tool descriptions of a type's methods from their doc comments", genCommand},
	{"install", "add an MCP server to Claude Code, Claude Desktop, Cursor or VS Code", install},
}

// run runs ferry with args (without the program name) and returns its exit
// code.
func run(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 {
		usage(e.stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			c, ok := lookup(args[1])
			if !ok {
				fmt.Fprintf(e.stderr, "ferry: no command %q; run \"ferry help\" for the list\n", args[1])
				return exitUsage
			}
			return exitCode(c.run(ctx, []string{"-h"}, e), e)
		}
		usage(e.stdout)
		return exitOK
	case "version", "-version", "--version":
		fmt.Fprintln(e.stdout, "ferry", version())
		return exitOK
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(e.stderr, "ferry: no command %q; run \"ferry help\" for the list\n", name)
		return exitUsage
	}
	return exitCode(c.run(ctx, args[1:], e), e)
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// exitCode prints err, if it says something, in one line on stderr and
// turns it into an exit code. The line is escaped as oneLine does: the
// messages that quote a server are escaped where they are made, and this
// keeps any other from driving the terminal.
func exitCode(err error, e *env) int {
	var ex *exitError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errUsage):
		return exitUsage // the usage has been printed
	case errors.As(err, &ex):
		if ex.err != nil {
			fmt.Fprintln(e.stderr, "ferry:", oneLine(ex.err.Error()))
		}
		return ex.code
	}
	fmt.Fprintln(e.stderr, "ferry:", oneLine(err.Error()))
	return exitFailed
}

// exitError gives an error its exit code. A nil err exits quietly with
// the code (call uses it when the tool's error result is already on
// stdout).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// protocolError marks err as a connection or protocol failure (exit 3).
func protocolError(err error) error { return &exitError{code: exitProtocol, err: err} }

// errUsage says the command line was wrong; the usage has been printed.
var errUsage = errors.New("usage")

// version is the module's version when built by go install, or the VCS
// revision when built from a checkout.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel " + s.Value[:12]
		}
	}
	return "(devel)"
}

func usage(w io.Writer) {
	fmt.Fprint(w, "usage: ferry <command> [flags]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `  help      print this help, or a command's: ferry help CMD

Run "ferry CMD -h" for a command's flags. "ferry -version" prints the version.
tools, call, prompts, prompt, resources, read and lint take a TARGET: an http(s):// URL, or
"--" and the command of a stdio server (ferry tools -- ./server --stdio).
Exit codes: 0 success, 1 failure (call: the tool returned an error result;
lint: problems found), 2 usage, 3 connection or protocol failure.
`)
}

// parseFlags parses args into fs. Asked for help (-h), it prints the usage
// to stdout and returns flag.ErrHelp; on a bad flag it prints the problem
// and the usage to stderr and returns errUsage.
func parseFlags(fs *flag.FlagSet, args []string, help string, stdout, stderr io.Writer) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		printUsage(fs, help, stdout)
		return flag.ErrHelp
	}
	fmt.Fprintln(stderr, "ferry:", err)
	printUsage(fs, help, stderr)
	return errUsage
}

func printUsage(fs *flag.FlagSet, help string, w io.Writer) {
	fmt.Fprint(w, help)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
