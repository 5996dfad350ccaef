package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// readmeCommand is one "go run ./cmd/ferry ..." command of README.md: the
// environment assignments before it and ferry's arguments.
type readmeCommand struct {
	line string
	env  map[string]string
	args []string
}

// readmeCommands returns every "go run ./cmd/ferry" command of README.md,
// from its indented code blocks and its inline code spans.
func readmeCommands(t *testing.T) []readmeCommand {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for l := range strings.SplitSeq(string(data), "\n") {
		if code, ok := strings.CutPrefix(l, "    "); ok && strings.Contains(code, "go run ./cmd/ferry ") {
			lines = append(lines, strings.TrimSpace(code))
		}
	}
	// Inline spans, such as `claude mcp add shop -- go run ./cmd/ferry demo -stdio`.
	for _, m := range regexp.MustCompile("`[^`\n]*(go run \\./cmd/ferry [^`\n]*)`").FindAllStringSubmatch(string(data), -1) {
		lines = append(lines, m[1])
	}
	var cmds []readmeCommand
	for _, l := range lines {
		words, err := shellWords(l)
		if err != nil {
			t.Fatalf("README line %q: %v", l, err)
		}
		c := readmeCommand{line: l, env: map[string]string{}}
		for len(words) > 0 && regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`).MatchString(words[0]) {
			name, value, _ := strings.Cut(words[0], "=")
			c.env[name] = value
			words = words[1:]
		}
		if len(words) < 4 || words[0] != "go" || words[1] != "run" || words[2] != "./cmd/ferry" {
			t.Fatalf("README line %q does not run ferry as go run ./cmd/ferry ARGS", l)
		}
		c.args = words[3:]
		cmds = append(cmds, c)
	}
	return cmds
}

// shellWords splits a command line as a POSIX shell does for the simple
// lines of the README: blanks separate words, single quotes keep
// everything, double quotes keep everything but \" and \\, and a leading
// ~/ is the home directory. Anything else a shell would interpret
// (variables, pipes, redirections) is an error: the test could not run
// the line as a reader would.
func shellWords(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' at byte %d", i)
			}
			word.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				switch {
				case line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`+"`", line[i+1]) >= 0:
					i++
				case line[i] == '$' || line[i] == '`':
					return nil, fmt.Errorf("%c in double quotes at byte %d", line[i], i)
				}
				word.WriteByte(line[i])
			}
			if i == len(line) {
				return nil, fmt.Errorf(`unterminated " in %q`, line)
			}
			inWord = true
		case strings.IndexByte("$`|;&<>()*?\\", c) >= 0:
			return nil, fmt.Errorf("shell syntax %q at byte %d", c, i)
		case c == '~' && !inWord && strings.HasPrefix(line[i:], "~/"):
			home, err := os.UserHomeDir()
			if err != nil {
				return nil, err
			}
			word.WriteString(home)
			inWord = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

func TestShellWords(t *testing.T) {
	got, err := shellWords(`A=1 go run ./cmd/ferry call "x y" '{"a": "b c"}' --header "Authorization: Bearer \"K\""`)
	want := []string{"A=1", "go", "run", "./cmd/ferry", "call", "x y", `{"a": "b c"}`, "--header", `Authorization: Bearer "K"`}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("shellWords = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{`echo $HOME`, `a | b`, `"open`, `'open`, `x > y`, `"$KEY"`} {
		if _, err := shellWords(bad); err == nil {
			t.Errorf("shellWords(%q) accepted shell syntax it does not interpret", bad)
		}
	}
}

// startDemo runs ferry demo in process on a free port with a database of
// its own, and returns its URL (http://127.0.0.1:PORT) and key. The demo
// stops, and must exit 0, when the test ends.
func startDemo(t *testing.T) (base, key string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "demo.db")
	stderr := newLineWriter(startLine)
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: stderr, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"demo", "--http", "127.0.0.1:0", "--db", db}, e) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != exitOK {
				t.Errorf("demo exited %d: %s", code, stderr)
			}
		case <-time.After(10 * time.Second):
			t.Error("demo did not stop")
		}
	})
	select {
	case m := <-stderr.found:
		return m[1], m[2]
	case code := <-done:
		t.Fatalf("demo exited %d: %s", code, stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("no listening line: %s", stderr)
	}
	return "", ""
}

// The README's client lines (ferry tools, call, prompts, read) work as
// written against a running demo, its address and key put in: each exits
// 0 with one JSON document on stdout, with the key in a -header flag as
// written and in FERRY_TOKEN as the README says it may be. The README's
// other ferry lines (demo, serve) name only flags that exist: with -h
// appended they print their usage and exit 0.
func TestREADMECommands(t *testing.T) {
	base, key := startDemo(t)
	const readmeBase = "http://127.0.0.1:8080"
	client := map[string]bool{"tools": true, "call": true, "prompts": true, "read": true, "lint": true}
	seen := map[string]int{}
	for _, c := range readmeCommands(t) {
		seen[c.args[0]]++
		getenv := func(k string) string { return c.env[k] }
		if !client[c.args[0]] {
			t.Run(c.line, func(t *testing.T) {
				var out, errOut strings.Builder
				args := append(append([]string(nil), c.args...), "-h")
				code := run(t.Context(), args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: getenv})
				if code != exitOK || !strings.HasPrefix(out.String(), "usage: ferry "+c.args[0]) || errOut.Len() != 0 {
					t.Errorf("with -h: exit %d, stderr %q; a flag of the line does not exist?", code, errOut.String())
				}
			})
			continue
		}
		var args, noHeader []string
		for i := 0; i < len(c.args); i++ {
			a := strings.ReplaceAll(strings.ReplaceAll(c.args[i], readmeBase, base), "KEY", key)
			args = append(args, a)
			if (a == "--header" || a == "-header") && i+1 < len(c.args) && strings.HasPrefix(c.args[i+1], "Authorization: Bearer ") {
				args = append(args, strings.ReplaceAll(c.args[i+1], "KEY", key))
				i++
				continue
			}
			noHeader = append(noHeader, a)
		}
		if !strings.Contains(strings.Join(args, " "), base) {
			t.Errorf("README line %q does not name the demo's address %s", c.line, readmeBase)
		}
		for _, v := range []struct {
			name string
			args []string
			env  map[string]string
		}{{"as written", args, c.env}, {"FERRY_TOKEN", noHeader, map[string]string{tokenEnv: key}}} {
			t.Run(c.line+"/"+v.name, func(t *testing.T) {
				var out, errOut strings.Builder
				e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string { return v.env[k] }}
				code := run(t.Context(), v.args, e)
				var doc map[string]json.RawMessage
				if code != exitOK || json.Unmarshal([]byte(out.String()), &doc) != nil || len(doc) == 0 {
					t.Errorf("ferry %q: exit %d, stdout %.500q, stderr %q; want 0 and a JSON document", v.args, code, out.String(), errOut.String())
				}
				if strings.Contains(string(doc["isError"]), "true") {
					t.Errorf("ferry %q: the tool returned an error result: %.500s", v.args, out.String())
				}
			})
		}
	}
	// The README keeps showing the client, the demo and serve: a test that
	// found no lines would prove nothing.
	for _, name := range []string{"demo", "tools", "call", "read", "serve"} {
		if seen[name] == 0 {
			t.Errorf("README.md has no go run ./cmd/ferry %s line; found %v", name, seen)
		}
	}
}

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
				var stdout, stderr strings.Builder
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("%s: %v\n%s%s", strings.Join(words, " "), err, stdout.String(), stderr.String())
				}
				// The go command's "downloading" lines go to stderr; the
				// program's answer is what it printed on stdout.
				if words[1] == "run" && strings.TrimSpace(stdout.String()) != "<nil>" {
					t.Errorf("the program printed %q, want <nil> (Check passed)", stdout.String())
				}
			}
		})
	}
}
