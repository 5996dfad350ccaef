// Command ferry is Ferry's command-line tool.
//
//	ferry gen -type T [-dir .] [-out file]   write the tool descriptions of type T's methods
//	ferry help                              print this help
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
//	//ferry:destructive no       (or yes) whether its writes may destroy data
//	//ferry:openworld no         (or yes) whether it reaches outside systems
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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run runs the command with args (without the program name) and returns
// its exit code: 0, 1 when the command failed, 2 when it was misused.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	var err error
	switch args[0] {
	case "gen":
		err = gen(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "ferry: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintln(stderr, "ferry:", err)
	return 1
}

// errUsage says the command line was wrong; the usage has been printed.
var errUsage = errors.New("usage")

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: ferry <command> [flags]

commands:
  gen    write the tool descriptions of a type's methods from their doc comments
  help   print this help

Run "ferry gen -h" for gen's flags and directives.
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
