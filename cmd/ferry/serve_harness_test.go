package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a strings.Builder that the server's goroutines may
// write to while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex // guards b
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// served is a ferry serve run in process.
type served struct {
	url    string // the MCP endpoint
	stderr *lockedBuffer
}

var listening = regexp.MustCompile(`listening on (http://\S+/mcp)`)

// startServe runs "ferry serve args..." in process with the environment
// pairs given and waits until it listens; it is stopped when the test
// ends. A run that exits instead fails the test with its stderr.
func startServe(t *testing.T, args []string, envPairs ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{stderr: &lockedBuffer{}}
	done := make(chan int, 1)
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: s.stderr, getenv: envFunc(envPairs)}
	go func() { done <- run(ctx, append([]string{"serve"}, args...), e) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("ferry serve exited %d when stopped: %s", code, s.stderr.String())
			}
		case <-time.After(15 * time.Second):
			t.Errorf("ferry serve did not stop within 15s")
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(s.stderr.String()); m != nil {
			s.url = m[1]
			return s
		}
		select {
		case code := <-done:
			done <- code
			t.Fatalf("ferry serve %q exited %d before listening: %s", args, code, s.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("ferry serve %q did not listen within 60s: %s", args, s.stderr.String())
	return nil
}

// failServe runs a "ferry serve" that must not start and returns its
// exit code and stderr.
func failServe(t *testing.T, args []string, envPairs ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr lockedBuffer
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, getenv: envFunc(envPairs)}
	code := run(ctx, append([]string{"serve"}, args...), e)
	if ctx.Err() != nil {
		t.Fatalf("ferry serve %q started instead of failing: %s", args, stderr.String())
	}
	return code, stderr.String()
}

func envFunc(pairs []string) func(string) string {
	vars := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		vars[pairs[i]] = pairs[i+1]
	}
	return func(k string) string { return vars[k] }
}

// rpcReply is a JSON-RPC answer.
type rpcReply struct {
	Status int
	Header http.Header
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// post sends one modern-era (2026-07-28) request, with the headers given
// as name, value pairs.
func (s *served) post(t *testing.T, method string, params map[string]any, headers ...string) rpcReply {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	} else if uri, ok := params["uri"].(string); ok {
		req.Header.Set("Mcp-Name", uri)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s %s: %v", s.url, method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := rpcReply{Status: resp.StatusCode, Header: resp.Header}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("%s: not JSON-RPC: %v: %s", method, err, raw)
		}
	}
	return r
}

// toolList is a tools/list result.
type toolList struct {
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	} `json:"tools"`
}

// tools lists the server's tools, sorted by name.
func (s *served) tools(t *testing.T, headers ...string) toolList {
	t.Helper()
	r := s.post(t, "tools/list", nil, headers...)
	if r.Status != http.StatusOK || r.Error != nil {
		t.Fatalf("tools/list: status %d, error %+v", r.Status, r.Error)
	}
	var l toolList
	if err := json.Unmarshal(r.Result, &l); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(l.Tools, func(a, b struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}) int {
		return strings.Compare(a.Name, b.Name)
	})
	return l
}

func (l toolList) names() []string {
	var out []string
	for _, tool := range l.Tools {
		out = append(out, tool.Name)
	}
	return out
}

// toolResult is a tools/call result.
type toolResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Structured map[string]any `json:"structuredContent"`
}

func (r toolResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// call calls a tool and decodes its result.
func (s *served) call(t *testing.T, name string, args map[string]any, headers ...string) toolResult {
	t.Helper()
	r := s.post(t, "tools/call", map[string]any{"name": name, "arguments": args}, headers...)
	if r.Status != http.StatusOK || r.Error != nil {
		t.Fatalf("tools/call %s: status %d, error %+v", name, r.Status, r.Error)
	}
	var res toolResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// records returns the data of a list result, failing on an error result.
func records(t *testing.T, r toolResult) []map[string]any {
	t.Helper()
	if r.IsError {
		t.Fatalf("list failed: %s", r.text())
	}
	raw, _ := json.Marshal(r.Structured["data"])
	var out []map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("list data %s: %v", raw, err)
	}
	return out
}
