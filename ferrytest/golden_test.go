package ferrytest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
