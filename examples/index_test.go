// Package examples_test checks examples/README.md, the index of the
// examples: it names every example, and each command it shows runs an
// example that exists.
package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// exampleDirs returns the directories of examples: those with a main.go.
func exampleDirs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(e.Name(), "main.go")); e.IsDir() && err == nil {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs
}

// The index has a section for every example and none for an example
// that does not exist, and each section shows how to run its example.
func TestIndexNamesEveryExample(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	index := string(data)
	var sections []string
	for _, m := range regexp.MustCompile(`(?m)^## (\S+)$`).FindAllStringSubmatch(index, -1) {
		sections = append(sections, m[1])
	}
	dirs := exampleDirs(t)
	for _, d := range dirs {
		if !slices.Contains(sections, d) {
			t.Errorf("README.md has no section for the example %s", d)
		}
	}
	for i, s := range sections {
		if !slices.Contains(dirs, s) {
			t.Errorf("README.md has a section %s, which is no example", s)
			continue
		}
		body := index[strings.Index(index, "## "+s+"\n"):]
		if i+1 < len(sections) {
			body = body[:strings.Index(body, "## "+sections[i+1]+"\n")]
		}
		if !strings.Contains(body, "go run ./examples/"+s) && !strings.Contains(body, "cd examples/"+s+" && ") {
			t.Errorf("the section %s does not say how to run it", s)
		}
	}
}

// Every example the index runs with go run ./examples/NAME is a main
// package the repository root resolves, through go.work for those with a
// module of their own.
func TestIndexCommandsNameMainPackages(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, m := range regexp.MustCompile(`go run (\./examples/[a-z]+)`).FindAllStringSubmatch(string(data), -1) {
		if !slices.Contains(pkgs, m[1]) {
			pkgs = append(pkgs, m[1])
		}
	}
	if len(pkgs) < len(exampleDirs(t))-1 { // tour runs in its own directory
		t.Fatalf("README.md runs only %q", pkgs)
	}
	list := exec.CommandContext(t.Context(), "go", append([]string{"list", "-f", "{{.ImportPath}} {{.Name}}"}, pkgs...)...)
	list.Dir = ".."
	out, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s from the repository root: %v\n%s", pkgs, err, out)
	}
	for line := range strings.Lines(string(out)) {
		if !strings.HasSuffix(line, " main\n") {
			t.Errorf("not a main package: %s", line)
		}
	}
}
