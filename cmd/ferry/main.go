// Command ferry is Ferry's command-line tool.
//
//	ferry gen -type LibraryTools [-dir .]   write the tool descriptions of a type's methods
//
// gen is meant for go generate:
//
//	//go:generate go run github.com/ferry-mcp/ferry/cmd/ferry gen -type LibraryTools
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "help", "-h", "--help":
		usage()
		return
	default:
		fmt.Fprintf(os.Stderr, "ferry: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferry:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, `usage: ferry <command> [flags]

commands:
  gen   write the tool descriptions of a type's methods from their doc comments`)
}
