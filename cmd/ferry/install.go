package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/textproto"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

const installHelp = `usage: ferry install [flags] CLIENT NAME URL
       ferry install [flags] CLIENT NAME -- COMMAND [ARGS...]

install adds the MCP server NAME to the configuration file of CLIENT, or
replaces the entry of that name, and leaves every other entry and the
rest of the file (order, indentation, comments) as it was. The file before
the change is kept beside it as FILE.bak; the file's mode is kept.

CLIENT is one of:
  claude-code     ~/.claude.json, or .mcp.json here with -scope project
  claude-desktop  claude_desktop_config.json in the user's application folder
  cursor          ~/.cursor/mcp.json, or .cursor/mcp.json here with -scope project
  vscode          the user profile's mcp.json, or .vscode/mcp.json here with -scope project

The server is an http(s):// URL (Streamable HTTP) or, after "--", the
command of a stdio server:

  ferry install claude-code shop http://127.0.0.1:8080/mcp -header 'Authorization: Bearer ${SHOP_KEY}'
  ferry install cursor shop -- ferry demo --stdio

Credentials: a header or env value may refer to an environment variable as
${NAME} (in single quotes, so the shell leaves it alone). It is written as
the client's own reference where it has one, so the secret stays out of
the file: ${NAME} for Claude Code, ${env:NAME} for Cursor, and an input VS
Code asks for once and keeps in its secret storage. Claude Desktop reads
no variables: there the value is written into the file, and install says
so. A value given without ${...} is written as given, and install says so.

flags:
`

// installSpec is the server an install writes: a URL with headers, or a
// command with its environment.
type installSpec struct {
	name      string
	url       string
	headers   []installPair
	command   []string
	env       []installPair
	lookupEnv func(string) (string, bool)
}

// installPair is a header or an environment variable of the entry.
type installPair struct{ name, value string }

// values returns the entry's values that may refer to variables.
func (s *installSpec) values() []string {
	var vs []string
	for _, p := range s.headers {
		vs = append(vs, p.value)
	}
	for _, p := range s.env {
		vs = append(vs, p.value)
	}
	if len(s.command) > 1 {
		vs = append(vs, s.command[1:]...)
	}
	return vs
}

// serverName is what every client accepts as a server's name.
var serverName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// envName is an environment variable's name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// maxConfigFile bounds the configuration file install reads (Claude
// Code's ~/.claude.json holds its history and grows to a few megabytes).
const maxConfigFile = 64 << 20

// install adds a server to a client's configuration.
func install(_ context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	var headers, envs multiFlag
	var scope, file string
	var print bool
	fs.Var(&headers, "header", "send the HTTP header `'Name: value'` (repeatable; the value may hold ${VAR})")
	fs.Var(&envs, "env", "set `NAME=VALUE` in a stdio server's environment (repeatable; the value may hold ${VAR})")
	fs.StringVar(&scope, "scope", "user", "user (the client's own file) or project (the file in this directory)")
	fs.StringVar(&file, "file", "", "write this configuration `file` instead of the client's usual one")
	fs.BoolVar(&print, "print", false, "print the entry and the file it would go to, and write nothing")
	positional, command, err := parseClientArgs(fs, args, installHelp, e)
	if err != nil {
		return err
	}
	bad := func(format string, args ...any) error { return usagef(fs, installHelp, e, format, args...) }
	if len(positional) < 2 {
		return bad("want CLIENT and NAME, then a URL or \"--\" and a command")
	}
	c, ok := lookupClient(positional[0])
	if !ok {
		return bad("no client %q: give claude-code, claude-desktop, cursor or vscode", positional[0])
	}
	s := &installSpec{name: positional[1], command: command, lookupEnv: func(name string) (string, bool) {
		v := e.getenv(name)
		return v, v != ""
	}}
	if !serverName.MatchString(s.name) {
		return bad("NAME %q: give a letter, then letters, digits, '-' or '_' (at most 64)", s.name)
	}
	switch rest := positional[2:]; {
	case command != nil && len(rest) > 0:
		return bad("give a URL or \"--\" and a command, not both")
	case command == nil && len(rest) != 1:
		return bad("want one URL after NAME (or \"--\" and a stdio server's command), have %d arguments", len(rest))
	case command == nil:
		if s.url, err = installURL(rest[0]); err != nil {
			return bad("%v", err)
		}
	}
	if scope != "user" && scope != "project" {
		return bad("-scope %q: give user or project", scope)
	}
	if s.headers, err = installHeaders(headers); err != nil {
		return bad("%v", err)
	}
	if s.env, err = installEnv(envs); err != nil {
		return bad("%v", err)
	}
	switch {
	case s.url != "" && len(s.env) > 0:
		return bad("-env sets a stdio server's environment; a URL takes -header")
	case s.url == "" && len(s.headers) > 0:
		return bad("-header is for a URL; a stdio server takes -env")
	}
	path := file
	if path == "" {
		dirs, err := installDirsOf(e)
		if err != nil {
			return err
		}
		if path = c.paths(scope, dirs); path == "" {
			return bad("%s has no project file; leave -scope out", c.name)
		}
	}
	entry, inputs, notes, err := c.entry(s)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("install: %w", err)}
	}
	notes = append(notes, literalNotes(s, c)...)
	if s.url != "" && !loopbackURL(s.url) && strings.HasPrefix(s.url, "http:") && len(s.headers) > 0 {
		notes = append(notes, "the URL is plain http to another machine: its headers cross the network unencrypted")
	}
	if s.url == "" && !filepath.IsAbs(s.command[0]) {
		note := fmt.Sprintf("%s must be on the PATH %s starts the server with", s.command[0], c.name)
		if abs, err := exec.LookPath(s.command[0]); err == nil && filepath.IsAbs(abs) {
			note += fmt.Sprintf(" (here it is %s; give that path if the client does not find it)", abs)
		}
		notes = append(notes, note)
	}
	if print {
		l := layout{pretty: true, unit: "  "}
		doc := ordered{{c.key, ordered{{s.name, entry}}}}
		if len(inputs) > 0 {
			doc = append(doc, kv{"inputs", inputObjects(inputs)})
		}
		fmt.Fprintln(e.stdout, renderJSON(doc, "", l))
		fmt.Fprintf(e.stderr, "ferry: install: would write this entry to %s (nothing written)\n", path)
		for _, n := range notes {
			fmt.Fprintln(e.stderr, "ferry: install: note:", n)
		}
		return nil
	}
	replaced, backup, err := writeEntry(path, c.key, s.name, entry, inputs, scope)
	if err != nil {
		return fmt.Errorf("install: %s: %w", path, err)
	}
	verb := "added"
	if replaced {
		verb = "replaced"
	}
	fmt.Fprintf(e.stdout, "%s the MCP server %s in %s's %s\n", verb, s.name, c.name, path)
	if backup != "" {
		fmt.Fprintf(e.stdout, "the file as it was is in %s\n", backup)
	}
	for _, n := range notes {
		fmt.Fprintln(e.stdout, "note:", n)
	}
	fmt.Fprintf(e.stdout, "restart %s, or reload its MCP servers, to use it\n", c.name)
	return nil
}

// installURL checks a server's URL.
func installURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", fmt.Errorf("URL %q cannot be read as a URL", redactRawURL(raw))
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("URL %q is not http:// or https://; for a stdio server, put its command after \"--\"", u.Redacted())
	case u.Host == "":
		return "", fmt.Errorf("URL %q has no host", u.Redacted())
	case u.User != nil:
		return "", fmt.Errorf("URL %q holds a user or password: pass the credential with -header instead, as ${VAR}", u.Redacted())
	}
	return u.String(), nil
}

// loopbackURL reports whether a URL's host is this machine.
func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// installHeaders reads -header values.
func installHeaders(lines []string) ([]installPair, error) {
	var out []installPair
	for _, line := range lines {
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok {
			// The line may be a bare secret: nothing of it is quoted.
			return nil, errors.New(`a -header value has no ':'; it is not a header line "Name: value"`)
		}
		if !validHeaderName(name) || !validHeaderValue(value) || value == "" {
			// The value may be a secret: the message quotes only the name.
			return nil, fmt.Errorf(`-header %q is not a header line "Name: value"`, name+": ...")
		}
		name = textproto.CanonicalMIMEHeaderKey(name)
		if ownHeader(name) {
			return nil, fmt.Errorf("-header %s: the client sets it itself; leave it out", name)
		}
		out = append(out, installPair{name, value})
	}
	return out, nil
}

// installEnv reads -env values.
func installEnv(pairs []string) ([]installPair, error) {
	var out []installPair
	for _, p := range pairs {
		name, value, ok := strings.Cut(p, "=")
		if !ok || !envName.MatchString(name) || strings.ContainsRune(value, 0) {
			return nil, fmt.Errorf("-env %q is not NAME=VALUE with NAME a variable's name", name+"=...")
		}
		out = append(out, installPair{name, value})
	}
	return out, nil
}

// literalNotes says which values are written into the file as given, for
// the clients that could have read them from the environment.
func literalNotes(s *installSpec, c *installClient) []string {
	if c.id == "claude-desktop" {
		return nil // said by its entry
	}
	var notes []string
	for _, p := range s.headers {
		if !envRef.MatchString(p.value) {
			notes = append(notes, fmt.Sprintf("the header %s is written into the file as given; to keep a secret out of it, give the value as '${VAR}'", p.name))
		}
	}
	for _, p := range s.env {
		if !envRef.MatchString(p.value) {
			notes = append(notes, fmt.Sprintf("%s is written into the file as given; to keep a secret out of it, give the value as '${VAR}'", p.name))
		}
	}
	return notes
}

func inputObjects(inputs []installInput) []ordered {
	var out []ordered
	for _, in := range inputs {
		out = append(out, inputObject(in))
	}
	return out
}

func inputObject(in installInput) ordered {
	return ordered{{"type", "promptString"}, {"id", in.id}, {"description", in.description}, {"password", true}}
}

// installDirsOf finds the directories the configuration paths start from.
func installDirsOf(e *env) (installDirs, error) {
	home := e.getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return installDirs{}, fmt.Errorf("install: cannot find the home directory (%w); give the file with -file", err)
		}
		home = h
	}
	cwd, err := os.Getwd()
	if err != nil {
		return installDirs{}, fmt.Errorf("install: %w", err)
	}
	return defaultDirs(e.getenv, home, cwd), nil
}

// writeEntry sets the server name to entry in the configuration file at
// path (created if missing), with VS Code's inputs. It keeps a backup of a
// file it changes beside it and the file's mode, and writes through a
// temporary file renamed over the old one, so a failure leaves the old
// file whole. A symbolic link is followed: its target is written.
func writeEntry(path, key, name string, entry ordered, inputs []installInput, scope string) (replaced bool, backup string, err error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, "", err
	}
	old, mode, exists, err := readConfig(path)
	if err != nil {
		return false, "", err
	}
	updated, replaced, err := setEntry(old, key, name, entry, inputs)
	if err != nil {
		return false, "", err
	}
	if exists && bytes.Equal(old, updated) {
		return true, "", nil
	}
	if !exists {
		mode = 0o600
		if scope == "project" {
			mode = 0o644
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return false, "", err
		}
	} else {
		backup = path + ".bak"
		if err := writeFileAtomic(backup, old, mode); err != nil {
			return false, "", fmt.Errorf("keeping the old file: %w", err)
		}
	}
	return replaced, backup, writeFileAtomic(path, updated, mode)
}

// readConfig reads a configuration file, if it exists, with its mode.
func readConfig(path string) (b []byte, mode fs.FileMode, exists bool, err error) {
	f, err := os.Open(path) //nolint:gosec // the user's own configuration file
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, false, err
	}
	if !st.Mode().IsRegular() {
		return nil, 0, false, errors.New("not a regular file")
	}
	b, err = io.ReadAll(io.LimitReader(f, maxConfigFile+1))
	if err != nil {
		return nil, 0, false, err
	}
	if len(b) > maxConfigFile {
		return nil, 0, false, fmt.Errorf("larger than %d MiB; is it the right file?", maxConfigFile>>20)
	}
	return b, st.Mode().Perm(), true, nil
}

// setEntry returns the file b with the server name set to entry under
// key, and VS Code's inputs set, and whether an entry was replaced. An
// empty b starts a new file.
func setEntry(b []byte, key, name string, entry ordered, inputs []installInput) ([]byte, bool, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		doc := ordered{{key, ordered{{name, entry}}}}
		if len(inputs) > 0 {
			doc = append(doc, kv{"inputs", inputObjects(inputs)})
		}
		return []byte(renderJSON(doc, "", layout{pretty: true, unit: "  "}) + "\n"), false, nil
	}
	top, err := parseConfig(b)
	if err != nil {
		return nil, false, fmt.Errorf("cannot be read as JSON (%w); fix it or move it away, and run install again", err)
	}
	l := layoutOf(b, top)
	replaced := false
	var ed edit
	switch m := top.member(key); {
	case m == nil:
		ed = setMember(b, top, key, ordered{{name, entry}}, l)
	case m.val.kind != '{':
		return nil, false, fmt.Errorf("its %q is not a JSON object; fix it and run install again", key)
	default:
		replaced = m.val.member(name) != nil
		ed = setMember(b, m.val, name, entry, l)
	}
	b = apply(b, []edit{ed})
	// Each input is one more edit, made on the file as the last left it.
	for _, in := range inputs {
		if top, err = parseConfig(b); err != nil {
			return nil, false, fmt.Errorf("internal error: the edited file does not parse: %w", err)
		}
		m := top.member("inputs")
		switch {
		case m == nil:
			ed = setMember(b, top, "inputs", []ordered{inputObject(in)}, l)
		case m.val.kind != '[':
			return nil, false, errors.New(`its "inputs" is not a JSON array; fix it and run install again`)
		default:
			ed = appendElem(b, m.val, inputObject(in), l)
			for _, el := range m.val.elems {
				if el.kind == '{' {
					var id string
					if m := el.member("id"); m != nil && json.Unmarshal(b[m.val.start:m.val.end], &id) == nil && id == in.id {
						ed = edit{el.start, el.end, renderJSON(inputObject(in), lineIndent(b, el.start), l)}
					}
				}
			}
		}
		b = apply(b, []edit{ed})
	}
	if _, err := parseConfig(b); err != nil {
		return nil, false, fmt.Errorf("internal error: the edited file does not parse: %w", err)
	}
	return b, replaced, nil
}

// writeFileAtomic writes b to path through a temporary file in the same
// directory, renamed over path once written and synced.
func writeFileAtomic(path string, b []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() { _ = os.Remove(tmp) }() // gone after the rename; removes it after a failure
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
