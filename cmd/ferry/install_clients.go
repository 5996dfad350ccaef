package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
)

// An installClient is one MCP client ferry install writes to: where its
// configuration file is, under which key its servers are, how an entry is
// written, and how it refers to an environment variable. The formats are
// each client's documented ones (as of 2026-12):
//
//   - Claude Code: ~/.claude.json (user scope) or .mcp.json in the project
//     (project scope), servers under "mcpServers"; an HTTP server is
//     {"type": "http", "url", "headers"}, a stdio one {"type": "stdio",
//     "command", "args", "env"}; ${VAR} in any of them is read from the
//     environment Claude Code runs in.
//   - Claude Desktop: claude_desktop_config.json in the user's application
//     support folder, "mcpServers" of stdio servers only {"command",
//     "args", "env"}, with no variables: a URL is reached through the npm
//     bridge mcp-remote, its headers passed in the entry's env.
//   - Cursor: ~/.cursor/mcp.json or .cursor/mcp.json in the project,
//     "mcpServers", {"url", "headers"} or {"command", "args", "env"};
//     ${env:VAR} reads the environment.
//   - VS Code: the user profile's mcp.json or .vscode/mcp.json, "servers",
//     {"type": "http", "url", "headers"} or {"type": "stdio", ...}; a
//     secret is an ${input:ID} that VS Code asks for once and keeps in its
//     secret storage, declared in the file's "inputs".
type installClient struct {
	id, name string
	key      string // the object holding the servers
	// paths returns the configuration file of a scope ("user" or
	// "project"), or "" where the client has no such scope.
	paths func(scope string, dirs installDirs) string
	// entry builds the server's entry and says what became of the
	// credentials (notes for the user).
	entry func(s *installSpec) (ordered, []installInput, []string, error)
}

// installDirs are the directories the configuration paths start from;
// tests give their own.
type installDirs struct {
	home, config, appData, cwd string
	goos                       string
}

// installInput is a VS Code input: a secret the client asks the user for.
type installInput struct{ id, description string }

// envRef matches a reference to an environment variable in a header or
// env value: ${NAME}.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

var installClients = []installClient{
	{
		id: "claude-code", name: "Claude Code", key: "mcpServers",
		paths: func(scope string, d installDirs) string {
			if scope == "project" {
				return filepath.Join(d.cwd, ".mcp.json")
			}
			return filepath.Join(d.home, ".claude.json")
		},
		entry: func(s *installSpec) (ordered, []installInput, []string, error) {
			same := func(name string) string { return "${" + name + "}" }
			return typedEntry(s, same, true), nil, refNotes(s, "Claude Code reads $%s from the environment it runs in"), nil
		},
	},
	{
		id: "claude-desktop", name: "Claude Desktop", key: "mcpServers",
		paths: func(scope string, d installDirs) string {
			if scope == "project" {
				return ""
			}
			switch d.goos {
			case "darwin":
				return filepath.Join(d.home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
			case "windows":
				return filepath.Join(d.appData, "Claude", "claude_desktop_config.json")
			}
			return filepath.Join(d.config, "Claude", "claude_desktop_config.json")
		},
		entry: desktopEntry,
	},
	{
		id: "cursor", name: "Cursor", key: "mcpServers",
		paths: func(scope string, d installDirs) string {
			if scope == "project" {
				return filepath.Join(d.cwd, ".cursor", "mcp.json")
			}
			return filepath.Join(d.home, ".cursor", "mcp.json")
		},
		entry: func(s *installSpec) (ordered, []installInput, []string, error) {
			ref := func(name string) string { return "${env:" + name + "}" }
			return typedEntry(s, ref, false), nil, refNotes(s, "Cursor reads $%s from the environment it runs in"), nil
		},
	},
	{
		id: "vscode", name: "VS Code", key: "servers",
		paths: func(scope string, d installDirs) string {
			if scope == "project" {
				return filepath.Join(d.cwd, ".vscode", "mcp.json")
			}
			switch d.goos {
			case "darwin":
				return filepath.Join(d.home, "Library", "Application Support", "Code", "User", "mcp.json")
			case "windows":
				return filepath.Join(d.appData, "Code", "User", "mcp.json")
			}
			return filepath.Join(d.config, "Code", "User", "mcp.json")
		},
		entry: func(s *installSpec) (ordered, []installInput, []string, error) {
			var inputs []installInput
			seen := map[string]bool{}
			ref := func(name string) string {
				if !seen[name] {
					seen[name] = true
					inputs = append(inputs, installInput{id: name, description: fmt.Sprintf("%s for the MCP server %s (the value of $%s)", name, s.name, name)})
				}
				return "${input:" + name + "}"
			}
			e := typedEntry(s, ref, true)
			return e, inputs, refNotes(s, "VS Code asks for %s the first time it starts the server and keeps it in its secret storage"), nil
		},
	},
}

// lookupClient finds a client by its id.
func lookupClient(id string) (*installClient, bool) {
	for i := range installClients {
		if installClients[i].id == id {
			return &installClients[i], true
		}
	}
	return nil, false
}

// typedEntry builds the entry of the clients that take a URL or a command,
// with each ${VAR} rewritten by ref; typed says whether the entry carries
// "type".
func typedEntry(s *installSpec, ref func(string) string, typed bool) ordered {
	rewrite := func(v string) string {
		return envRef.ReplaceAllStringFunc(v, func(m string) string { return ref(envRef.FindStringSubmatch(m)[1]) })
	}
	var e ordered
	if s.url != "" {
		if typed {
			e = append(e, kv{"type", "http"})
		}
		e = append(e, kv{"url", s.url})
		if len(s.headers) > 0 {
			h := ordered{}
			for _, p := range s.headers {
				h = append(h, kv{p.name, rewrite(p.value)})
			}
			e = append(e, kv{"headers", h})
		}
		return e
	}
	if typed {
		e = append(e, kv{"type", "stdio"})
	}
	e = append(e, kv{"command", s.command[0]})
	args := []string{}
	for _, a := range s.command[1:] {
		args = append(args, rewrite(a))
	}
	e = append(e, kv{"args", args})
	if len(s.env) > 0 {
		env := ordered{}
		for _, p := range s.env {
			env = append(env, kv{p.name, rewrite(p.value)})
		}
		e = append(e, kv{"env", env})
	}
	return e
}

// desktopEntry builds Claude Desktop's entry. Its file takes stdio
// servers only and reads no variables: a URL goes through mcp-remote, and
// every header or env value is written as it is, a ${VAR} replaced by the
// variable's value now.
func desktopEntry(s *installSpec) (ordered, []installInput, []string, error) {
	var notes []string
	var missing error
	resolve := func(v string) string {
		return envRef.ReplaceAllStringFunc(v, func(m string) string {
			name := envRef.FindStringSubmatch(m)[1]
			val, ok := s.lookupEnv(name)
			if !ok && missing == nil {
				missing = fmt.Errorf("$%s is not set: Claude Desktop cannot read a variable from its environment, so ferry install writes the value itself; set it, or give the value", name)
			}
			return val
		})
	}
	secret := false
	var e ordered
	if s.url != "" {
		args := []string{"-y", "mcp-remote", s.url}
		env := ordered{}
		for i, p := range s.headers {
			// mcp-remote expands ${NAME} in its arguments from its own
			// environment, which the entry's env sets: the value stays
			// out of the command line the client shows.
			name := fmt.Sprintf("MCP_HEADER_%d", i+1)
			args = append(args, "--header", p.name+":${"+name+"}")
			env = append(env, kv{name, resolve(p.value)})
			secret = true
		}
		e = ordered{{"command", "npx"}, {"args", args}}
		if len(env) > 0 {
			e = append(e, kv{"env", env})
		}
		notes = append(notes, "Claude Desktop's file takes only stdio servers: the entry runs the npm package mcp-remote (Node.js needed) to reach "+s.url)
	} else {
		args := []string{}
		for _, a := range s.command[1:] {
			args = append(args, resolve(a))
		}
		e = ordered{{"command", s.command[0]}, {"args", args}}
		if len(s.env) > 0 {
			env := ordered{}
			for _, p := range s.env {
				env = append(env, kv{p.name, resolve(p.value)})
			}
			e = append(e, kv{"env", env})
			secret = true
		}
	}
	if missing != nil {
		return nil, nil, nil, missing
	}
	if secret {
		notes = append(notes, "Claude Desktop cannot read variables from its environment: the header and env values are written into the file as they are now")
	}
	return e, nil, notes, nil
}

// refNotes says how each variable a value refers to is read.
func refNotes(s *installSpec, format string) []string {
	var notes []string
	seen := map[string]bool{}
	for _, v := range s.values() {
		for _, m := range envRef.FindAllStringSubmatch(v, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				notes = append(notes, fmt.Sprintf(format, m[1]))
			}
		}
	}
	return notes
}

// defaultDirs are the process's own directories for the configuration
// paths.
func defaultDirs(getenv func(string) string, home, cwd string) installDirs {
	config := getenv("XDG_CONFIG_HOME")
	if config == "" {
		config = filepath.Join(home, ".config")
	}
	appData := getenv("APPDATA")
	if appData == "" {
		appData = filepath.Join(home, "AppData", "Roaming")
	}
	return installDirs{home: home, config: config, appData: appData, cwd: cwd, goos: runtime.GOOS}
}
