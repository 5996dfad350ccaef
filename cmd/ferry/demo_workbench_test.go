package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/ferry-mcp/ferry/workbench"
)

// ferry demo serves the workbench at /ui/ and says so: the page without
// the key, its config naming /mcp and the trace, and the trace of a Go
// client's call with the key only.
func TestDemoServesWorkbench(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	stderr := newLineWriter(startLine)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: stderr, getenv: func(string) string { return "" }}
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
	defer func() {
		cancel()
		<-done
	}()
	base, key := m[1], m[2]
	for _, want := range []string{"ferry demo: workbench at " + base + "/ui/ ", "\n  " + base + "/ui/\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	get := func(path, key string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.Header.Get("Content-Security-Policy") != workbench.ContentSecurityPolicy || len(resp.Header.Values("Set-Cookie")) > 0 {
			t.Errorf("GET %s: CSP %q, Set-Cookie %q", path, resp.Header.Get("Content-Security-Policy"), resp.Header.Values("Set-Cookie"))
		}
		return resp.StatusCode, string(body)
	}
	if status, body := get("/ui/", ""); status != 200 || !strings.Contains(body, "<html") {
		t.Errorf("GET /ui/: %d %.80s", status, body)
	}
	if status, body := get("/ui/config.json", ""); status != 200 ||
		body != `{"title":"shop","endpoint":"/mcp","trace":"trace","catalog":"catalog.json","protocolVersion":"2026-07-28"}` {
		t.Errorf("GET /ui/config.json: %d %s", status, body)
	}
	c := ferrytest.DialHTTP(t, base+"/mcp", &ferrytest.Options{Header: http.Header{"Authorization": {"Bearer " + key}}})
	c.CallTool(t.Context(), "list_products", map[string]any{"top": 2})
	if status, body := get("/ui/trace", ""); status != http.StatusUnauthorized || strings.Contains(body, "list_products") {
		t.Errorf("the trace without the key: %d %s", status, body)
	}
	status, body := get("/ui/trace?after=0", key)
	var p struct {
		Events []struct{ Name, Caller, Outcome string } `json:"events"`
	}
	if err := json.Unmarshal([]byte(body), &p); status != 200 || err != nil || len(p.Events) != 1 ||
		p.Events[0].Name != "list_products" || p.Events[0].Caller != "demo" || p.Events[0].Outcome != "ok" {
		t.Errorf("the trace with the key: %d %s", status, body)
	}
}
