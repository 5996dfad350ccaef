package main

import (
	"log/slog"
	"testing"

	"github.com/ferry-mcp/ferry/ferrytest"
)

// The fixture server, built as main builds it, answers the protocol
// correctly in both eras.
func TestFixturesPassCheckServer(t *testing.T) {
	ferrytest.CheckServer(t, new(fixture).newServer(serverOptions(slog.New(slog.DiscardHandler), nil, nil)))
}
