package main

import (
	"log/slog"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// The fixture server, built as main builds it, answers the protocol
// correctly in both eras.
func TestFixturesPassCheckServer(t *testing.T) {
	srv := ferry.NewServer("ferry-everything", "0.1.0", &ferry.ServerOptions{
		Logger:       slog.New(slog.DiscardHandler),
		Instructions: "Fixtures for the MCP conformance suite.",
	})
	addTools(srv)
	addTypedTools(srv)
	addModernTools(srv)
	addPrompts(srv)
	addModernPrompts(srv)
	addResources(srv)
	ferrytest.CheckServer(t, srv)
}
