// Package interop tests Ferry against MCP implementations it does not own.
//
// It is a separate module so that the clients it drives stay out of the root
// module's dependency graph. Its tests build the fixture server
// conformance/everything once and start it as a real subprocess, over
// Streamable HTTP (stateful and stateless) and over stdio, then talk to it
// with the official Go SDK client ([github.com/modelcontextprotocol/go-sdk]).
//
// Run it from this directory, with -count=1: the server is built by a
// subprocess from sources outside this module, which go test's result cache
// cannot see, so a cached result may predate the server it claims to test.
//
//	go test -count=1 ./...
package interop
