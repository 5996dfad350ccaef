package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The generated file of the methods example is current: regenerating it
// gives the same bytes.
func TestGenIsCurrent(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "methods")
	got, err := describe(dir, "Library")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, outputName("Library")))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("run go generate ./examples/methods (-committed +generated):\n%s", diff)
	}
}

func TestParseDoc(t *testing.T) {
	td, err := parseDoc("FindBooks", "FindBooks searches the books\nof the library.\n", []string{"readonly", "name search", "openworld no", "title Find books"})
	if err != nil {
		t.Fatal(err)
	}
	tool := td.tool
	if tool.Name != "search" || tool.Title != "Find books" || !tool.ReadOnly || tool.OpenWorld.String() != "no" {
		t.Errorf("tool = %+v", tool)
	}
	if tool.Description != "Searches the books of the library." {
		t.Errorf("description = %q", tool.Description)
	}
	for _, bad := range [][]string{{"readonly", "colour red"}, {"destructive maybe"}} {
		if _, err := parseDoc("X", "X does.", bad); err == nil || !strings.Contains(err.Error(), "ferry:") {
			t.Errorf("directives %q: err = %v, want one naming the directive", bad, err)
		}
	}
}
