package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// installEnv runs ferry install with a home of its own, in a directory of
// its own, and returns the home.
func installHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Chdir(home)
	return home
}

func readJSONFile(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", path, err, b)
	}
	return v
}

// Each client gets its documented file and entry, with the credential as
// that client's reference to the variable.
func TestInstallEachClient(t *testing.T) {
	const url = "http://127.0.0.1:8080/mcp"
	auth := []string{"-header", "Authorization: Bearer ${SHOP_KEY}"}
	desktop := filepath.Join(".config", "Claude", "claude_desktop_config.json")
	vscodeUser := filepath.Join(".config", "Code", "User", "mcp.json")
	switch runtime.GOOS {
	case "darwin":
		desktop = filepath.Join("Library", "Application Support", "Claude", "claude_desktop_config.json")
		vscodeUser = filepath.Join("Library", "Application Support", "Code", "User", "mcp.json")
	case "windows":
		desktop = filepath.Join("AppData", "Roaming", "Claude", "claude_desktop_config.json")
		vscodeUser = filepath.Join("AppData", "Roaming", "Code", "User", "mcp.json")
	}
	for _, tt := range []struct {
		args []string
		file string
		want string // the whole file
	}{
		{append([]string{"install", "claude-code", "shop", url}, auth...), ".claude.json",
			`{"mcpServers":{"shop":{"type":"http","url":"` + url + `","headers":{"Authorization":"Bearer ${SHOP_KEY}"}}}}`},
		{append([]string{"install", "-scope", "project", "claude-code", "shop", url}, auth...), ".mcp.json",
			`{"mcpServers":{"shop":{"type":"http","url":"` + url + `","headers":{"Authorization":"Bearer ${SHOP_KEY}"}}}}`},
		{append([]string{"install", "cursor", "shop", url}, auth...), filepath.Join(".cursor", "mcp.json"),
			`{"mcpServers":{"shop":{"url":"` + url + `","headers":{"Authorization":"Bearer ${env:SHOP_KEY}"}}}}`},
		{[]string{"install", "cursor", "shop", "-env", "DB=${DB_URL}", "--", "/usr/bin/ferry", "serve", "-stdio"}, filepath.Join(".cursor", "mcp.json"),
			`{"mcpServers":{"shop":{"command":"/usr/bin/ferry","args":["serve","-stdio"],"env":{"DB":"${env:DB_URL}"}}}}`},
		{append([]string{"install", "-scope", "project", "vscode", "shop", url}, auth...), filepath.Join(".vscode", "mcp.json"),
			`{"servers":{"shop":{"type":"http","url":"` + url + `","headers":{"Authorization":"Bearer ${input:SHOP_KEY}"}}},` +
				`"inputs":[{"type":"promptString","id":"SHOP_KEY","description":"SHOP_KEY for the MCP server shop (the value of $SHOP_KEY)","password":true}]}`},
		{[]string{"install", "vscode", "shop", "--", "/usr/bin/ferry", "demo", "--stdio"}, vscodeUser,
			`{"servers":{"shop":{"type":"stdio","command":"/usr/bin/ferry","args":["demo","--stdio"]}}}`},
		{append([]string{"install", "claude-desktop", "shop", url}, auth...), desktop,
			`{"mcpServers":{"shop":{"command":"npx","args":["-y","mcp-remote","` + url + `","--header","Authorization:${MCP_HEADER_1}"],"env":{"MCP_HEADER_1":"Bearer k-123"}}}}`},
	} {
		t.Run(strings.Join(tt.args[1:3], " "), func(t *testing.T) {
			home := installHome(t)
			code, stdout, stderr := runFerry(t, tt.args, "HOME", home, "SHOP_KEY", "k-123")
			if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "added the MCP server shop in ") {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
			}
			got := readJSONFile(t, filepath.Join(home, tt.file))
			var want map[string]any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				b, _ := json.Marshal(got)
				t.Errorf("%s:\n got %s\nwant %s", tt.file, b, tt.want)
			}
			st, err := os.Stat(filepath.Join(home, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if wantMode := map[bool]os.FileMode{true: 0o644, false: 0o600}[strings.Contains(strings.Join(tt.args, " "), "-scope project")]; runtime.GOOS != "windows" && st.Mode().Perm() != wantMode {
				t.Errorf("a new file's mode is %v; want %v", st.Mode().Perm(), wantMode)
			}
			if strings.Contains(tt.args[1]+tt.args[3], "claude-desktop") && !strings.Contains(stdout, "written into the file") {
				t.Errorf("Claude Desktop: the output does not say the value is written into the file:\n%s", stdout)
			}
		})
	}
}

// An existing file keeps every other entry, its layout, comments and mode;
// the file as it was is kept beside it; a second install replaces the
// entry.
func TestInstallKeepsTheRest(t *testing.T) {
	for _, tt := range []struct {
		name, before, after string
	}{
		{"four spaces", "{\n    \"numStartups\": 3,\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"}\n    },\n    \"tail\": [1, 2]\n}\n",
			"{\n    \"numStartups\": 3,\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"},\n        \"shop\": {\n            \"type\": \"http\",\n            \"url\": \"http://127.0.0.1:8080/mcp\"\n        }\n    },\n    \"tail\": [1, 2]\n}\n"},
		{"compact", `{"a":"\u00e9<&>","mcpServers":{"other":{"command":"x"}}}`,
			`{"a":"\u00e9<&>","mcpServers":{"other":{"command":"x"},"shop":{"type":"http","url":"http://127.0.0.1:8080/mcp"}}}`},
		{"no servers yet", "{\n\t\"theme\": \"dark\"\n}\n",
			"{\n\t\"theme\": \"dark\",\n\t\"mcpServers\": {\n\t\t\"shop\": {\n\t\t\t\"type\": \"http\",\n\t\t\t\"url\": \"http://127.0.0.1:8080/mcp\"\n\t\t}\n\t}\n}\n"},
		{"empty servers", "{\n  \"mcpServers\": {}\n}\n",
			"{\n  \"mcpServers\": {\n    \"shop\": {\n      \"type\": \"http\",\n      \"url\": \"http://127.0.0.1:8080/mcp\"\n    }\n  }\n}\n"},
		{"replaced", "{\n  \"mcpServers\": {\n    \"shop\": {\"command\": \"old\"},\n    \"z\": {}\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"shop\": {\n      \"type\": \"http\",\n      \"url\": \"http://127.0.0.1:8080/mcp\"\n    },\n    \"z\": {}\n  }\n}\n"},
		{"comments and trailing commas", "{\n  // mine\n  \"mcpServers\": {\n    /* a */ \"a\": {\"command\": \"a\"},\n  },\n}\n",
			"{\n  // mine\n  \"mcpServers\": {\n    /* a */ \"a\": {\"command\": \"a\"},\n    \"shop\": {\n      \"type\": \"http\",\n      \"url\": \"http://127.0.0.1:8080/mcp\"\n    },\n  },\n}\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := installHome(t)
			path := filepath.Join(home, ".claude.json")
			if err := os.WriteFile(path, []byte(tt.before), 0o640); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runFerry(t, []string{"install", "claude-code", "shop", "http://127.0.0.1:8080/mcp"}, "HOME", home)
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, stdout, stderr)
			}
			after, _ := os.ReadFile(path)
			backup, _ := os.ReadFile(path + ".bak")
			if string(after) != tt.after {
				t.Errorf("after:\n%s\nwant:\n%s", after, tt.after)
			}
			if string(backup) != tt.before {
				t.Errorf("the backup is %q; want the file as it was", backup)
			}
			if st, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o640) {
				t.Errorf("mode after: %v, %v; want 0640 kept", st.Mode(), err)
			}
			if want := strings.Contains(tt.before, `"shop"`); strings.HasPrefix(stdout, "replaced") != want {
				t.Errorf("stdout %q; want it to say replaced: %v", stdout, want)
			}
		})
	}
}

// A configuration file reached through a symbolic link (a dotfiles
// manager's) is written where the link points, and stays a link.
func TestInstallFollowsSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	home := installHome(t)
	real := filepath.Join(home, "dotfiles", "claude.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte(`{"mcpServers":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(home, ".claude.json")); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runFerry(t, []string{"install", "claude-code", "shop", "http://127.0.0.1:8080/mcp"}, "HOME", home); code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	if fi, err := os.Lstat(filepath.Join(home, ".claude.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("~/.claude.json is no longer a link: %v %v", fi.Mode(), err)
	}
	if got := readJSONFile(t, real); got["mcpServers"].(map[string]any)["shop"] == nil {
		t.Errorf("the link's target has no shop: %v", got)
	}
}

// -print writes nothing and prints the entry.
func TestInstallPrint(t *testing.T) {
	home := installHome(t)
	code, stdout, stderr := runFerry(t, []string{"install", "-print", "cursor", "shop", "http://127.0.0.1:8080/mcp", "-header", "X-Key: ${K}"}, "HOME", home)
	if code != 0 || !strings.Contains(stdout, `"X-Key": "${env:K}"`) || !strings.Contains(stderr, "nothing written") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(home, ".cursor")); !os.IsNotExist(err) {
		t.Errorf("-print created %s: %v", filepath.Join(home, ".cursor"), err)
	}
}

// Wrong command lines and unreadable files are refused in one line, with
// nothing written and no secret repeated.
func TestInstallRefusals(t *testing.T) {
	const url = "http://127.0.0.1:8080/mcp"
	for _, tt := range []struct {
		args   []string
		before string // the client's file, if any
		code   int
		want   string
	}{
		{[]string{"install", "zed", "shop", url}, "", exitUsage, `no client "zed"`},
		{[]string{"install", "cursor", "my shop", url}, "", exitUsage, `NAME "my shop"`},
		{[]string{"install", "cursor", "shop"}, "", exitUsage, "want one URL after NAME"},
		{[]string{"install", "cursor", "shop", "https://bob:pw-s3cr3t@example.com/mcp"}, "", exitUsage, "holds a user or password"},
		{[]string{"install", "cursor", "shop", "ftp://example.com/mcp"}, "", exitUsage, "is not http:// or https://"},
		{[]string{"install", "cursor", "shop", url, "-header", "Bearer pw-s3cr3t"}, "", exitUsage, "is not a header line"},
		{[]string{"install", "cursor", "shop", url, "-header", "Mcp-Session-Id: x"}, "", exitUsage, "sets it itself"},
		{[]string{"install", "cursor", "shop", url, "-env", "A=b"}, "", exitUsage, "-env sets a stdio server's environment"},
		{[]string{"install", "cursor", "shop", "-header", "A: b", "--", "x"}, "", exitUsage, "-header is for a URL"},
		{[]string{"install", "cursor", "shop", url, "--", "x"}, "", exitUsage, "not both"},
		{[]string{"install", "-scope", "project", "claude-desktop", "shop", url}, "", exitUsage, "has no project file"},
		{[]string{"install", "-scope", "team", "cursor", "shop", url}, "", exitUsage, `-scope "team"`},
		{[]string{"install", "claude-desktop", "shop", url, "-header", "Authorization: Bearer ${UNSET_KEY}"}, "", exitUsage, "$UNSET_KEY is not set"},
		{[]string{"install", "claude-code", "shop", url}, `{"mcpServers": {"a": 1},`, exitFailed, "cannot be read as JSON (line 1: "},
		{[]string{"install", "claude-code", "shop", url}, `{"mcpServers": ["a"]}`, exitFailed, `its "mcpServers" is not a JSON object`},
		{[]string{"install", "claude-code", "shop", url}, `[1]`, exitFailed, "does not hold a JSON object"},
		{[]string{"install", "claude-code", "shop", url}, strings.Repeat("[", 100000), exitFailed, "nested more than"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			home := installHome(t)
			path := filepath.Join(home, ".claude.json")
			if tt.before != "" {
				if err := os.WriteFile(path, []byte(tt.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := runFerry(t, tt.args, "HOME", home)
			first, _, _ := strings.Cut(stderr, "\n")
			if code != tt.code || stdout != "" || !strings.Contains(first, tt.want) || strings.Contains(stderr, "pw-s3cr3t") {
				t.Errorf("exit %d (want %d)\nstdout %q\nstderr %s\nwant %q", code, tt.code, stdout, stderr, tt.want)
			}
			entries, _ := os.ReadDir(home)
			for _, e := range entries {
				if e.Name() != ".claude.json" {
					t.Errorf("left %s behind", e.Name())
				}
			}
			if tt.before != "" {
				if b, _ := os.ReadFile(path); string(b) != tt.before {
					t.Errorf("the file changed: %q", b)
				}
			}
		})
	}
}

// Whatever a configuration file holds, setting an entry never panics; on
// a JSON object it keeps every other member and adds the entry.
func FuzzInstallSetEntry(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"mcpServers":{"a":{}}}`, "{\n  // c\n  \"servers\": {},\n}", `{"mcpServers":[]}`, `[`, `{"a":"\"}`,
		"{\"mcpServers\":{\"shop\":1,\"shop\":2}}", `{"inputs":[{"id":"K"}],"servers":{}}`, "\ufeff{}", `{"a":1e400}`,
	} {
		f.Add(seed)
	}
	entry := ordered{{"type", "http"}, {"url", "http://h/mcp"}, {"headers", ordered{{"A", "${input:K}"}}}}
	inputs := []installInput{{id: "K", description: "k"}}
	f.Fuzz(func(t *testing.T, file string) {
		for _, key := range []string{"mcpServers", "servers"} {
			out, _, err := setEntry([]byte(file), key, "shop", entry, inputs)
			if err != nil {
				continue
			}
			if _, err := parseConfig(out); err != nil {
				t.Fatalf("the edited file does not parse: %v\n%s", err, out)
			}
			var before map[string]any
			if json.Unmarshal([]byte(file), &before) != nil || strings.TrimSpace(file) == "" {
				continue
			}
			var after map[string]any
			if err := json.Unmarshal(out, &after); err != nil {
				t.Fatalf("a JSON file became invalid JSON: %v\n%s", err, out)
			}
			for k, v := range before {
				if k != key && k != "inputs" && !reflect.DeepEqual(after[k], v) {
					t.Fatalf("member %q changed: %v -> %v", k, v, after[k])
				}
			}
			servers, _ := after[key].(map[string]any)
			if _, ok := servers["shop"]; !ok {
				t.Fatalf("no shop in %s", out)
			}
			if old, _ := before[key].(map[string]any); old != nil {
				for k, v := range old {
					if k != "shop" && !reflect.DeepEqual(servers[k], v) {
						t.Fatalf("server %q changed", k)
					}
				}
			}
		}
	})
}
