package main

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The generated file of the methods example is current: regenerating it
// gives the same bytes.
func TestGenIsCurrent(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "methods")
	got, _, err := describe(dir, "Library")
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
	td, err := parseDoc("FindBooks", "FindBooks searches the books\nof the library.\n", []string{"readonly", "name search", "closedworld", "title Find books"})
	if err != nil {
		t.Fatal(err)
	}
	tool := td.tool
	if tool.Name != "search" || tool.Title != "Find books" || !tool.ReadOnly || !tool.ClosedWorld || tool.Additive {
		t.Errorf("tool = %+v", tool)
	}
	if tool.Description != "Searches the books of the library." {
		t.Errorf("description = %q", tool.Description)
	}
	for _, bad := range [][]string{{"readonly", "colour red"}, {"destructive no"}, {"openworld yes"}} {
		if _, err := parseDoc("X", "X does.", bad); err == nil || !strings.Contains(err.Error(), "ferry:") {
			t.Errorf("directives %q: err = %v, want one naming the directive", bad, err)
		}
	}
}

// Code generated for a type that holds a mutex passes go vet: a value
// receiver would copy the lock.
func TestGeneratedCodePassesVetForATypeHoldingAMutex(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "locked"))
	if err != nil {
		t.Fatal(err)
	}
	src, _, err := describe(dir, "Counter")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "func (*Counter) FerryTools()") {
		t.Errorf("generated:\n%s", src)
	}
	tmp := t.TempDir()
	generated := filepath.Join(tmp, "counter_tools.go")
	if err := os.WriteFile(generated, src, 0o644); err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(dir, "counter_tools.go"): generated}})
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), goBin, "vet", "-overlay", overlayFile, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go vet: %v\n%s", err, out)
	}
}

func TestExitCodesAndWhereUsageGoes(t *testing.T) {
	tests := []struct {
		args             []string
		code             int
		stdout, stderr   string // parts each must contain
		emptyOut, emptyE bool
	}{
		{args: []string{"gen", "-h"}, code: 0, stdout: "//ferry:readonly", emptyE: true},
		{args: []string{"gen", "-help"}, code: 0, stdout: "-type", emptyE: true},
		{args: []string{"-h"}, code: 0, stdout: "usage: ferry", emptyE: true},
		{args: []string{"help"}, code: 0, stdout: "gen", emptyE: true},
		{args: []string{"gen", "-colour"}, code: 2, stderr: "flag provided but not defined: -colour", emptyOut: true},
		{args: []string{"gen"}, code: 2, stderr: "-type is required", emptyOut: true},
		{args: []string{"frobnicate"}, code: 2, stderr: `no command "frobnicate"`, emptyOut: true},
		{args: nil, code: 2, stderr: "usage: ferry", emptyOut: true},
		{args: []string{"gen", "-type", "Nope", "-dir", filepath.Join("testdata", "locked")}, code: 1, stderr: "no type Nope", emptyOut: true},
	}
	for _, tt := range tests {
		code, stdout, stderr := runFerry(t, tt.args)
		if code != tt.code {
			t.Errorf("ferry %q: exit %d, want %d (stderr %q)", tt.args, code, tt.code, stderr)
		}
		if !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("ferry %q: stdout %q, stderr %q", tt.args, stdout, stderr)
		}
		if tt.emptyOut && stdout != "" || tt.emptyE && stderr != "" {
			t.Errorf("ferry %q: stdout %q, stderr %q; want one empty", tt.args, stdout, stderr)
		}
	}
}

// A method without a doc comment still gets its entry, and gen names it on
// stderr instead of succeeding silently; it exits 0.
func TestGenWarnsOfMethodsWithoutDocComments(t *testing.T) {
	dir := t.TempDir()
	src := `package shop

import "context"

type Shop struct{}

// Sell sells an item.
func (*Shop) Sell(context.Context, struct{}) (string, error) { return "", nil }

func (*Shop) Count(context.Context, struct{}) (int, error) { return 0, nil }

func (*Shop) Audit(context.Context, struct{}) (int, error) { return 0, nil }
`
	if err := os.WriteFile(filepath.Join(dir, "shop.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runFerry(t, []string{"gen", "-type", "Shop", "-dir", dir})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "ferry: gen: warning: Shop.Audit has no doc comment, so its tool has no description: write one and run gen again\n" +
		"ferry: gen: warning: Shop.Count has no doc comment, so its tool has no description: write one and run gen again\n"
	if diff := cmp.Diff(want, stderr); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	out, err := os.ReadFile(filepath.Join(dir, "shop_tools.go"))
	if err != nil || !strings.Contains(string(out), `"Count": {Name: "count", Description: ""}`) {
		t.Errorf("generated %s, %v", out, err)
	}
}

// The command's doc (go doc ./cmd/ferry) and gen -h give the same
// synopsis, the file's name and the rule that drops a leading method name.
func TestGenDocAndHelpAgree(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputName("BookShelf"); got != "bookshelf_tools.go" {
		t.Errorf("outputName(BookShelf) = %q, which the docs do not say", got)
	}
	pkgDoc := strings.Join(strings.Fields(f.Doc.Text()), " ")
	help := strings.Join(strings.Fields(genHelp), " ")
	synopsis, _, _ := strings.Cut(strings.TrimPrefix(genHelp, "usage: "), "\n")
	for _, want := range []string{synopsis, "bookshelf_tools.go for BookShelf", `a leading method name is dropped ("FindBooks searches books" becomes "Searches books")`} {
		if !strings.Contains(pkgDoc, want) {
			t.Errorf("the package doc does not say %q", want)
		}
	}
	for _, want := range []string{"bookshelf_tools.go for BookShelf", `a leading method name is dropped ("FindBooks searches books" becomes "Searches books")`} {
		if !strings.Contains(help, want) {
			t.Errorf("gen -h does not say %q", want)
		}
	}
}
