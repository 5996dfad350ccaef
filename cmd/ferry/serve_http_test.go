package main

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// A table dropped between the start-up check and the HTTP handler's own
// check stops ferry serve with an error, not a panic.
func TestNewHandlerTurnsTheCheckPanicIntoAnError(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	s := &server{cfg: &serveConfig{db: d.url, writes: true}, env: &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: envFunc(nil)}, log: slog.New(slog.DiscardHandler)}
	srv, db, err := s.build(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer db()
	mustExec(t, d.db, "DROP TABLE visits")
	_, err = newHandler(srv, &ferry.HTTPOptions{})
	if err == nil || !strings.Contains(err.Error(), "visit") || strings.Contains(err.Error(), "\n") {
		t.Errorf("newHandler after a table was dropped: %v; want one line naming it", err)
	}
}
