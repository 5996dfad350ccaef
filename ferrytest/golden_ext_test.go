package ferrytest_test

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// The kit's own server matches its golden tools/list.
func TestGoldenTools(t *testing.T) {
	ferrytest.GoldenTools(t, newServer(), filepath.Join("testdata", "tools.golden.json"))
}

// A golden file that differs fails with a diff naming the change; a
// missing one fails saying how to write it.
func TestGoldenToolsFails(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "tools.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tools.json")
	changed := strings.Replace(string(want), "Greets someone by name.", "Greets someone.", 1)
	if err := os.WriteFile(path, []byte(changed), 0o600); err != nil {
		t.Fatal(err)
	}
	errs := failures(t, func(tb testing.TB) { ferrytest.GoldenTools(tb, newServer(), path) })
	if len(errs) != 1 || !strings.Contains(errs[0], `-golden +served`) ||
		!strings.Contains(errs[0], `-     "description": "Greets someone.",`) || !strings.Contains(errs[0], `+     "description": "Greets someone by name.",`) {
		t.Errorf("a changed description: failures %q, want one diff of the description", errs)
	}
	errs = failures(t, func(tb testing.TB) { ferrytest.GoldenTools(tb, newServer(), filepath.Join(t.TempDir(), "none.json")) })
	if len(errs) != 1 || !strings.Contains(errs[0], "-update") {
		t.Errorf("a missing golden file: failures %q", errs)
	}
}

// -update writes the file (and its directory), which then matches; the
// file holds the server's JSON as sent (Ferry writes "<" as \u003c, so
// a change of that escaping shows too).
func TestGoldenToolsUpdate(t *testing.T) {
	srv := ferry.NewServer("kit", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	srv.AddTool(ferry.Tool{Name: "cmp", Description: "Says whether a < b & b > c.", ReadOnly: true},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(), nil
		})
	path := filepath.Join(t.TempDir(), "new", "tools.json")
	old := flag.Lookup("update").Value.String()
	if err := flag.Set("update", "true"); err != nil {
		t.Fatal(err)
	}
	ferrytest.GoldenTools(t, srv, path)
	if err := flag.Set("update", old); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"description": "Says whether a \u003c b \u0026 b \u003e c."`) || !strings.HasSuffix(string(data), "]\n") {
		t.Errorf("the golden file reads:\n%s", data)
	}
	ferrytest.GoldenTools(t, srv, path) // compares, and matches
}
