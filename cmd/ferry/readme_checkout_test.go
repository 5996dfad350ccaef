package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// userMain is a program of a module outside the repository that uses
// Ferry and its entity module, as a user of a checkout would.
const userMain = `package main

import (
	"context"
	"fmt"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

func main() {
	srv := ferry.NewServer("svc", "1.0.0", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "hello", Description: "Says hello to someone by name.", ReadOnly: true},
		func(ctx context.Context, in struct {
			Name string ` + "`json:\"name\" doc:\"Who to greet.\"`" + `
		}) (string, error) {
			return "hello " + in.Name, nil
		})
	_ = entity.Text
	fmt.Println(srv.Check())
}
`

// checkoutCommands returns the go work and go mod commands of the
// README's "Use the library" section, each split into words, the
// checkout's path put in for /path/to/ferry.
func checkoutCommands(t *testing.T, checkout string) (work, mod [][]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Use the library\n")
	if !ok {
		t.Fatal(`README.md has no "## Use the library" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for line := range strings.Lines(section) {
		code, ok := strings.CutPrefix(line, "    ")
		if !ok {
			continue
		}
		words, err := shellWords(strings.TrimSpace(strings.ReplaceAll(code, "/path/to/ferry", checkout)))
		if err != nil {
			t.Fatalf("README line %q: %v", code, err)
		}
		switch {
		case len(words) > 2 && words[0] == "go" && words[1] == "work":
			work = append(work, words)
		case len(words) > 2 && words[0] == "go" && words[1] == "mod":
			mod = append(mod, words)
		}
	}
	if len(work) == 0 || len(mod) == 0 {
		t.Fatalf("the README's Use the library section shows %d go work and %d go mod commands, want both ways", len(work), len(mod))
	}
	return work, mod
}

// The README's two ways of using a checkout before a release work for a
// module outside the repository that imports the root and entity
// modules: a go.work file, or replace lines and go mod tidy. Modules the
// module cache lacks come from the Go module proxy.
func TestREADMECheckoutWays(t *testing.T) {
	checkout, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	work, mod := checkoutCommands(t, checkout)
	for name, cmds := range map[string][][]string{"go.work": work, "replace": mod} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(userMain), 0o600); err != nil {
				t.Fatal(err)
			}
			steps := append([][]string{{"go", "mod", "init", "example.com/svc"}}, cmds...)
			steps = append(steps, []string{"go", "run", "."})
			for _, words := range steps {
				cmd := exec.CommandContext(t.Context(), words[0], words[1:]...)
				cmd.Dir = dir
				// The repository's own go.work stays out: the module is
				// a user's, outside it.
				cmd.Env = append(os.Environ(), "GOWORK=", "GOFLAGS=")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", strings.Join(words, " "), err, out)
				}
				if words[1] == "run" && strings.TrimSpace(string(out)) != "<nil>" {
					t.Errorf("the program printed %q, want <nil> (Check passed)", out)
				}
			}
		})
	}
}
