package ferrytest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// updateFlag is the name of the flag that rewrites golden files. The
// package registers it unless the test binary already has one, as a
// package with golden files of its own may; GoldenTools reads whichever
// is registered.
const updateFlag = "update"

func init() {
	if flag.Lookup(updateFlag) == nil {
		flag.Bool(updateFlag, false, "rewrite golden files (ferrytest.GoldenTools and the package's own) instead of comparing with them")
	}
}

// updating reports whether the test binary runs with -update.
func updating() bool {
	f := flag.Lookup(updateFlag)
	return f != nil && f.Value.String() == "true"
}

// GoldenTools compares what srv answers to tools/list (in the modern era,
// every page, as an anonymous caller) with the golden file at path, so
// that a change of a name, a description or a schema shows up in review.
// The file holds the tools as an indented JSON array, in the server's
// order. A mismatch fails the test with a diff; run the test with -update
// to write the file (and its directory) instead.
func GoldenTools(t testing.TB, srv *ferry.Server, path string) {
	t.Helper()
	c := NewClient(t, srv, nil)
	tools := c.ListTools(t.Context())
	raws := make([]json.RawMessage, len(tools))
	for i, tl := range tools {
		raws[i] = tl.Raw
	}
	compact, err := json.Marshal(raws)
	if err != nil {
		t.Fatalf("ferrytest: encoding the tools: %v", err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, compact, "", "  "); err != nil {
		t.Fatalf("ferrytest: indenting the tools: %v", err)
	}
	got.WriteByte('\n')
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			t.Fatalf("ferrytest: %v", err)
		}
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil { //nolint:gosec // a golden file is meant to be read by all
			t.Fatalf("ferrytest: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path) //nolint:gosec // the test names its own golden file
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ferrytest: golden file %s does not exist: run the test with -update to write it", path)
	}
	if err != nil {
		t.Fatalf("ferrytest: %v", err)
	}
	if diff := lineDiff(string(want), got.String()); diff != "" {
		t.Errorf("ferrytest: tools/list differs from %s (-golden +served); if the change is meant, run the test with -update:\n%s", path, diff)
	}
}
