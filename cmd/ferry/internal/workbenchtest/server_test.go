package workbenchtest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/cmd/ferry/internal/shop"
)

// The demo's callers: the page's user types pageKey, the Go SDK's client
// sends sdkKey. Each key is its own caller, so the trace tells them apart.
const (
	pageKey    = "k-workbench-page-0123456789"
	pageCaller = "workbench-user"
	sdkKey     = "k-workbench-sdk-0123456789"
	sdkCaller  = "sdk-user"
	// sdkClient is the name the Go SDK's client gives itself.
	sdkClient = "workbench-test-sdk"
)

// exchange is one request a test server answered, as the server saw it.
type exchange struct {
	Method, Path, Host, Origin, UserAgent, MCPMethod string
	Status                                           int
	Body                                             string // the answer's first 500 bytes
}

// recorder is middleware that keeps every exchange of the handler it
// wraps, so that a test can tell who called what and what was answered.
type recorder struct {
	mu   sync.Mutex // guards seen
	seen []exchange
}

// wrap returns next, recording its exchanges.
func (rec *recorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &capture{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(cw, r)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.seen = append(rec.seen, exchange{Method: r.Method, Path: r.URL.Path, Host: r.Host, Origin: r.Header.Get("Origin"),
			UserAgent: r.UserAgent(), MCPMethod: r.Header.Get("Mcp-Method"), Status: cw.status, Body: cw.body.String()})
	})
}

// find returns the exchanges match accepts.
func (rec *recorder) find(match func(exchange) bool) []exchange {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []exchange
	for _, e := range rec.seen {
		if match(e) {
			out = append(out, e)
		}
	}
	return out
}

// capture is a ResponseWriter that keeps the status and the start of the
// body. It passes Flush on, for the MCP endpoint's streams.
type capture struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
	wrote  bool
}

func (c *capture) WriteHeader(status int) {
	if !c.wrote {
		c.status, c.wrote = status, true
	}
	c.ResponseWriter.WriteHeader(status)
}

func (c *capture) Write(p []byte) (int, error) {
	c.wrote = true
	if room := 500 - c.body.Len(); room > 0 {
		c.body.Write(p[:min(room, len(p))])
	}
	return c.ResponseWriter.Write(p)
}

func (c *capture) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// fromBrowser reports whether Chromium sent e.
func fromBrowser(e exchange) bool { return strings.Contains(e.UserAgent, "Chrome") }

// demo is the demo shop served in-process with its workbench, as ferry
// demo serves it.
type demo struct {
	url    string // the server's base URL: http://127.0.0.1:PORT
	rec    *recorder
	groups map[string][]string // each tool's groups, as the server holds them
}

// startDemo serves the demo shop (shop.New, its Handler with the
// workbench at /ui/) over a new SQLite file, on a random loopback port,
// for the life of the test.
func startDemo(t *testing.T) *demo {
	t.Helper()
	db, err := shop.Open(t.Context(), filepath.Join(t.TempDir(), "shop.db"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	svc, err := shop.New(t.Context(), db, &shop.Options{Keys: map[string]*ferry.Principal{
		pageKey: {Subject: pageCaller},
		sdkKey:  {Subject: sdkCaller},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	hs := httptest.NewServer(rec.wrap(svc.Handler()))
	t.Cleanup(hs.Close)
	groups := map[string][]string{}
	for _, tool := range svc.MCP.Catalog().Tools() {
		groups[tool.Name] = tool.Groups
	}
	return &demo{url: hs.URL, rec: rec, groups: groups}
}

// withKey sends an API key with every request, as an MCP client
// configured with the server's credential does.
type withKey struct{ key string }

func (k withKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return http.DefaultTransport.RoundTrip(r)
}

// connectSDK connects a client of the official Go SDK to endpoint with
// key (none if empty), at the SDK's newest protocol version; the session
// ends with the test.
func connectSDK(t *testing.T, endpoint, key string) *mcp.ClientSession {
	t.Helper()
	hc := http.DefaultClient
	if key != "" {
		hc = &http.Client{Transport: withKey{key}}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: sdkClient, Version: "v0.0.0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("the Go SDK's client: connecting to %s: %v", endpoint, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// catalog is what a server lists: its tools, prompts, resources and
// resource templates, by name (URI templates for templates).
type catalog struct {
	Tools, Prompts, Resources, Templates []string
}

// listAll returns what cs's server lists, every page of it.
func listAll(ctx context.Context, t *testing.T, cs *mcp.ClientSession) catalog {
	t.Helper()
	var c catalog
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		c.Tools = append(c.Tools, tool.Name)
	}
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		c.Prompts = append(c.Prompts, p.Name)
	}
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		c.Resources = append(c.Resources, r.Name)
	}
	for r, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/templates/list: %v", err)
		}
		c.Templates = append(c.Templates, r.Name)
	}
	return c
}
