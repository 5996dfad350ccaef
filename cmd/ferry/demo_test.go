package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// lineWriter is an io.Writer safe for concurrent use that keeps what was
// written and tells, through found, when a line matching pattern arrives.
type lineWriter struct {
	mu      sync.Mutex // guards buf and sent
	buf     bytes.Buffer
	pattern *regexp.Regexp
	found   chan []string
	sent    bool
}

func newLineWriter(pattern string) *lineWriter {
	return &lineWriter{pattern: regexp.MustCompile(pattern), found: make(chan []string, 1)}
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.sent {
		if m := w.pattern.FindStringSubmatch(w.buf.String()); m != nil {
			w.sent = true
			w.found <- m
		}
	}
	return len(p), nil
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// startLine matches the lines the demo prints when it serves: its URL and
// its key.
const startLine = `listening on (http://[^ ]+) \(MCP at[^\n]*\n(?:.*\n)*?ferry demo: API key: ([^ ]+) `

// ferry demo --http 127.0.0.1:0 serves on a free port, prints it with the
// counts and the connect lines, answers with the key and refuses without,
// and stops when its context ends.
func TestDemoHTTPInProcess(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	stderr := newLineWriter(startLine)
	var stdout bytes.Buffer
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: stderr, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"demo", "--http", "127.0.0.1:0", "--db", db}, e) }()
	var m []string
	select {
	case m = <-stderr.found:
	case code := <-done:
		t.Fatalf("demo exited %d: %s", code, stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("no listening line: %s", stderr)
	}
	base, key := m[1], m[2]
	// The generated key is crypto/rand's rand.Text: 26 base32 letters,
	// 130 bits; a guessable key would let anyone on the machine order.
	if !regexp.MustCompile(`^demo-[A-Z2-7]{26}$`).MatchString(key) {
		t.Errorf("generated key %q is not demo- and 26 base32 letters", key)
	}
	out := stderr.String()
	for _, want := range []string{
		"creating the shop database " + db,
		"14 tools, 2 prompts, 4 resources and 3 resource templates",
		`ferry demo: limits per caller (here, the API key): 32 calls at once, 50 a second with bursts of 100; a call over them is refused as "unavailable", so a load test must back off and retry` + "\n",
		"ferry demo: guardrails: each tool call ends after 1m (entity SQL after 10s); a result holds at most 100000 bytes, a larger one is cut (a list at a whole row, with hasMore)\n",
		"ferry demo: health: " + base + "/healthz (alive), " + base + "/readyz (ready: not draining and the database answering), no key needed\n",
		`claude mcp add --transport http shop ` + base + `/mcp --header "Authorization: Bearer ` + key + `"`,
		`npx @modelcontextprotocol/inspector --server-url ` + base + `/mcp --transport http --header "Authorization: Bearer ` + key + `"`,
		`curl -s -H "Authorization: Bearer ` + key + `" ` + base + `/api/orders/1`,
		`ferry demo: each group of tools at its own endpoint: ` + base + `/mcp/customers (3 tools), ` + base + `/mcp/orders (6 tools), ` + base + `/mcp/products (4 tools), ` + base + `/mcp/shop (1 tool)` + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(base, ":0/") || strings.HasSuffix(base, ":0") {
		t.Errorf("printed address %s is not the real port", base)
	}
	if r := mcpPost(t, base+"/mcp", "tools/list", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("tools/list without a key: %d %+v", r.Status, r.Error)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(base + path) // no key: a probe carries none
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || path == "/readyz" && !strings.Contains(string(body), `{"name":"database","ok":true`) {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
		}
	}
	// The banner's ferry install line, run, writes an entry with which a
	// client connects.
	_, line, _ := strings.Cut(out, "\n  ferry install ")
	line, _, _ = strings.Cut(line, "\n")
	words, err := shellWords(line)
	if err != nil || len(words) < 3 {
		t.Fatalf("no ferry install line (%v): %s", err, out)
	}
	file := filepath.Join(t.TempDir(), "claude.json")
	if code, stdout, stderr := runFerry(t, append([]string{"install", "-file", file}, words...)); code != 0 {
		t.Fatalf("the banner's ferry install: exit %d: %s%s", code, stdout, stderr)
	}
	var conf struct {
		MCPServers map[string]struct {
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if b, err := os.ReadFile(file); err != nil || json.Unmarshal(b, &conf) != nil {
		t.Fatalf("the installed file: %s, %v", b, err)
	}
	entry := conf.MCPServers["shop"]
	installed := ferrytest.DialHTTP(t, entry.URL, &ferrytest.Options{Header: http.Header{"Authorization": {entry.Headers["Authorization"]}}})
	if res := installed.CallTool(t.Context(), "get_order", map[string]any{"id": 1}); res.IsError {
		t.Errorf("get_order with the installed entry: %s", res.Raw)
	}
	c := ferrytest.DialHTTP(t, base+"/mcp", &ferrytest.Options{Header: http.Header{"Authorization": {"Bearer " + key}}})
	if res := c.CallTool(t.Context(), "get_order", map[string]any{"id": 1}); res.IsError || !strings.Contains(string(res.Raw), `"customer_id"`) {
		t.Errorf("get_order: %s", res.Raw)
	}
	// The orders group at its own endpoint: the route-bound order tools only.
	oc := ferrytest.DialHTTP(t, base+"/mcp/orders", &ferrytest.Options{Header: http.Header{"Authorization": {"Bearer " + key}}})
	var names []string
	for _, tl := range oc.ListTools(t.Context()) {
		names = append(names, tl.Name)
	}
	if want := []string{"cancel_order", "get_order", "list_orders", "order_history", "place_order", "ship_order"}; !slices.Equal(names, want) {
		t.Errorf("tools at /mcp/orders: %v, want %v", names, want)
	}
	// The shop's SQL queries are in the groups of what they answer about.
	for group, query := range map[string]string{"products": "best_sellers", "customers": "customer_spend"} {
		gc := ferrytest.DialHTTP(t, base+"/mcp/"+group, &ferrytest.Options{Header: http.Header{"Authorization": {"Bearer " + key}}})
		if !slices.ContainsFunc(gc.ListTools(t.Context()), func(tl client.Tool) bool { return tl.Name == query }) {
			t.Errorf("/mcp/%s does not list %s", group, query)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("demo exited %d after its context ended: %s", code, stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("demo did not stop after its context ended")
	}
	if stdout.Len() != 0 {
		t.Errorf("demo wrote to stdout: %q", stdout.String())
	}
}

// Bad command lines and bad files fail with one clear line.
func TestDemoRefuses(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "notes.db")
	if err := os.WriteFile(foreign, bytes.Repeat([]byte("my notes\n"), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		env  []string
		code int
		want string
	}{
		{"both transports", []string{"demo", "--stdio", "--http", "127.0.0.1:0"}, nil, exitUsage, "--http and --stdio exclude each other"},
		{"an argument", []string{"demo", "extra"}, nil, exitUsage, "demo takes no arguments"},
		{"a short key", []string{"demo", "--http", "127.0.0.1:0", "--db", filepath.Join(dir, "a.db"), "--api-key", "short"}, nil, exitFailed, "at least 16 characters"},
		{"a short key from the environment", []string{"demo", "--http", "127.0.0.1:0", "--db", filepath.Join(dir, "b.db")}, []string{"FERRY_DEMO_API_KEY", "short"}, exitFailed, "at least 16 characters (it came from $FERRY_DEMO_API_KEY); fix the variable, or unset it"},
		{"a key with a space", []string{"demo", "--http", "127.0.0.1:0", "--db", filepath.Join(dir, "c.db"), "--api-key", "0123456789abcdef 0123"}, nil, exitFailed, "printable ASCII, without spaces"},
		{"a key with a non-ASCII letter", []string{"demo", "--http", "127.0.0.1:0", "--db", filepath.Join(dir, "d.db")}, []string{"FERRY_DEMO_API_KEY", "0123456789abcdéf"}, exitFailed, "printable ASCII, without spaces"},
		{"a foreign file", []string{"demo", "--http", "127.0.0.1:0", "--db", foreign}, nil, exitFailed, "cannot be read as SQLite"},
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests = append(tests, struct {
		name string
		args []string
		env  []string
		code int
		want string
	}{"a busy port", []string{"demo", "--http", busy.Addr().String(), "--db", filepath.Join(dir, "e.db")}, nil, exitFailed,
		"; is another server using the port? --http ADDR picks another (--http 127.0.0.1:0 a free one)"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runFerry(t, tt.args, tt.env...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.want)
			}
		})
	}
	if data, _ := os.ReadFile(foreign); !bytes.Equal(data, bytes.Repeat([]byte("my notes\n"), 1000)) {
		t.Error("the foreign file was changed")
	}
	for _, name := range []string{"a.db", "b.db", "c.db", "d.db", "e.db"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was created although the demo refused to start", name)
		}
	}
}

// Over stdio the demo needs no key, writes only protocol to stdout, and
// its order tools still reach the REST API through its key middleware.
func TestDemoStdioInProcess(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cancel_order","arguments":{"id":1},` + meta + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"order_history","arguments":{"id":2},` + meta + `}}`,
	}, "\n") + "\n"
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(in), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if code := run(t.Context(), []string{"demo", "--stdio", "--db", db}, e); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	answers := map[float64]map[string]any{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("stdout has a line that is not JSON: %q", sc.Text())
		}
		if id, ok := msg["id"].(float64); ok {
			answers[id] = msg
		}
	}
	text := func(id float64) string { b, _ := json.Marshal(answers[id]); return string(b) }
	if !strings.Contains(text(1), `"place_order"`) {
		t.Errorf("tools/list: %s", text(1))
	}
	if !strings.Contains(text(2), `conflict: Order 1 has shipped`) {
		t.Errorf("cancel_order of a shipped order: %s", text(2))
	}
	if !strings.Contains(text(3), `"event\":\"placed\"`) && !strings.Contains(text(3), `"event":"placed"`) {
		t.Errorf("order_history: %s", text(3))
	}
	if !strings.Contains(stderr.String(), "serving MCP on stdio: 14 tools") || !strings.Contains(stderr.String(), "ferry demo: guardrails: each tool call ends after 1m ") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// buildFerry builds the ferry binary into a temporary directory.
func buildFerry(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ferry")
	cmd := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startBinary runs bin demo with args and waits for its listening line; it
// returns the URL, the key and how long the line took.
func startBinary(t *testing.T, bin string, args ...string) (*exec.Cmd, *lineWriter, string, string, time.Duration) {
	t.Helper()
	stderr := newLineWriter(startLine)
	cmd := exec.Command(bin, append([]string{"demo"}, args...)...)
	cmd.Stderr = stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	select {
	case m := <-stderr.found:
		return cmd, stderr, m[1], m[2], time.Since(start)
	case <-time.After(60 * time.Second):
		t.Fatalf("no listening line: %s", stderr)
	}
	return nil, nil, "", "", 0
}

// The built binary seeds on first start, reuses the file on the second,
// answers server/discover and tools/list with its key and 401 without, and
// exits 0 on SIGTERM.
func TestDemoBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildFerry(t)
	db := filepath.Join(t.TempDir(), "demo.db")
	for i, run := range []string{"first start (seeding)", "warm start"} {
		cmd, stderr, base, key, took := startBinary(t, bin, "--http", "127.0.0.1:0", "--db", db)
		t.Logf("%s: listening after %s", run, took.Round(time.Millisecond))
		if seeded := strings.Contains(stderr.String(), "creating the shop database"); seeded != (i == 0) {
			t.Errorf("%s: seeded = %v", run, seeded)
		}
		if r := mcpPost(t, base+"/mcp", "server/discover", nil, "Authorization", "Bearer "+key); r.Status != 200 || !strings.Contains(string(r.Result), `"supportedVersions"`) {
			t.Errorf("server/discover: %d %s %+v", r.Status, r.Result, r.Error)
		}
		if r := mcpPost(t, base+"/mcp", "tools/list", nil, "Authorization", "Bearer "+key); r.Status != 200 || strings.Count(string(r.Result), `"inputSchema"`) != 14 {
			t.Errorf("tools/list: %d %.300s %+v", r.Status, r.Result, r.Error)
		}
		if r := mcpPost(t, base+"/mcp", "tools/list", nil, "Authorization", "Bearer "+key+"x"); r.Status != http.StatusUnauthorized {
			t.Errorf("tools/list with a wrong key: %d", r.Status)
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s: after SIGTERM: %v\n%s", run, err, stderr)
		}
	}
}

// On a non-loopback address the demo serves any Host, since the key
// guards it, and says so; the connect lines name a reachable address.
func TestDemoNonLoopback(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	stderr := newLineWriter(startLine)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: stderr,
		getenv: func(k string) string { return map[string]string{"FERRY_DEMO_API_KEY": "k-from-env-0123456789"}[k] }}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"demo", "--http", "0.0.0.0:0", "--db", db}, e) }()
	var m []string
	select {
	case m = <-stderr.found:
	case code := <-done:
		t.Fatalf("demo exited %d: %s", code, stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("no listening line: %s", stderr)
	}
	base, key := m[1], m[2]
	if key != "$FERRY_DEMO_API_KEY" || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Errorf("url %s, key %s", base, key)
	}
	// The key from the environment is not printed; the commands name the
	// variable.
	if strings.Contains(stderr.String(), "k-from-env-0123456789") {
		t.Errorf("the key from the environment was printed: %s", stderr)
	}
	if !strings.Contains(stderr.String(), `--header "Authorization: Bearer $FERRY_DEMO_API_KEY"`) {
		t.Errorf("the connect lines do not name the variable: %s", stderr)
	}
	key = "k-from-env-0123456789"
	if !strings.Contains(stderr.String(), "not only loopback: anyone who can reach it and has the key can place orders") {
		t.Errorf("no warning: %s", stderr)
	}
	// A request naming another Host is served, with the key.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	req.Host = "shop.example.com:8080"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "server/discover")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("server/discover for Host shop.example.com: %d", resp.StatusCode)
	}
	// Serving any Host never means serving without the key.
	req.Header.Del("Authorization")
	req.Body = io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else if _ = resp.Body.Close(); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("server/discover for Host shop.example.com without the key: %d, want 401", resp.StatusCode)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("demo did not stop after its context ended")
	}
}

// ferry call drives the running demo in both eras: get_order answers
// what the REST API answers for the same order, and cancel_order of a
// shipped order exits 1 with the conflict result on stdout.
func TestDemoCall(t *testing.T) {
	base, key := startDemo(t)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/api/orders/1", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var rest map[string]any
	err = json.NewDecoder(resp.Body).Decode(&rest)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || rest["status"] != "shipped" {
		t.Fatalf("GET /api/orders/1: %d %v %v; want order 1, shipped", resp.StatusCode, rest, err)
	}
	auth := "Authorization: Bearer " + key
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(protocol, func(t *testing.T) {
			code, stdout, stderr := runFerry(t, []string{"call", "--protocol", protocol, "--header", auth, base + "/mcp", "get_order", `{"id":1}`})
			var res struct {
				IsError           bool           `json:"isError"`
				StructuredContent map[string]any `json:"structuredContent"`
			}
			decodeStdout(t, stdout, &res)
			if code != exitOK || stderr != "" || res.IsError {
				t.Errorf("get_order: exit %d, stderr %q, stdout %.300s", code, stderr, stdout)
			}
			for _, field := range []string{"id", "customer_id", "status", "total_cents"} {
				if rest[field] == nil || fmt.Sprint(res.StructuredContent[field]) != fmt.Sprint(rest[field]) {
					t.Errorf("get_order's %s is %v, the REST API's %v", field, res.StructuredContent[field], rest[field])
				}
			}
			code, stdout, stderr = runFerry(t, []string{"call", "--protocol", protocol, "--header", auth, base + "/mcp", "cancel_order", `{"id":1}`})
			res.IsError = false
			decodeStdout(t, stdout, &res)
			if code != exitFailed || !res.IsError || !strings.Contains(stdout, "conflict: Order 1 has shipped") ||
				stderr != "ferry: call: the tool cancel_order returned an error result (printed on stdout)\n" {
				t.Errorf("cancel_order of a shipped order: exit %d, stderr %q, stdout %.400s; want 1 and the conflict result", code, stderr, stdout)
			}
		})
	}
	// The refusal changed nothing.
	code, stdout, _ := runFerry(t, []string{"call", "--header", auth, base + "/mcp", "get_order", `{"id":1}`})
	if code != exitOK || !strings.Contains(stdout, `"status": "shipped"`) {
		t.Errorf("order 1 after the refused cancel: exit %d, %.300s", code, stdout)
	}
}

// ferry call starts the built binary's demo over stdio (ferry call --
// ferry demo --stdio --db PATH), gets an order and exits 0; the demo
// exits when its stdin closes.
func TestDemoCallStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildFerry(t)
	db := filepath.Join(t.TempDir(), "demo.db")
	for _, protocol := range []string{"", "2025-11-25"} {
		args := []string{"call", "-quiet", "--protocol", protocol, "get_order", `{"id":1}`, "--", bin, "demo", "--stdio", "--db", db}
		start := time.Now()
		code, stdout, stderr := runFerry(t, args)
		if code != exitOK || !strings.Contains(stdout, `"customer_id"`) || !strings.Contains(stderr, "serving MCP on stdio: 14 tools") {
			t.Errorf("protocol %q: exit %d, stdout %.300s, stderr %q", protocol, code, stdout, stderr)
		}
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("protocol %q: took %v", protocol, d)
		}
	}
}
