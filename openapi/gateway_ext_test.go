package openapi_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/openapi"
)

// itemsAPI is the real HTTP service of testdata/gateway, on loopback
// under /v1. hits counts the requests it served; huge counts the bytes
// /huge wrote before its client went away.
type itemsAPI struct {
	srv        *httptest.Server
	hits, huge atomic.Int64
	elsewhere  *httptest.Server // the other host /moved redirects to
	elseHits   atomic.Int64
}

// seenHeaders are the headers the API reports it saw.
var seenHeaders = []string{"X-Api-Key", "X-Client", "Authorization", "Cookie", "Mcp-Session-Id", "Mcp-Tool", "X-Request-Id", "Traceparent"}

func startItemsAPI(t *testing.T) *itemsAPI {
	t.Helper()
	a := &itemsAPI{}
	a.elsewhere = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.elseHits.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(a.elsewhere.Close)
	mux := http.NewServeMux()
	echo := func(w http.ResponseWriter, r *http.Request, status int) {
		body, _ := io.ReadAll(r.Body)
		h := map[string]string{}
		for _, k := range seenHeaders {
			if v := r.Header.Get(k); v != "" {
				h[k] = v
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"method": r.Method, "uri": r.RequestURI, "body": string(body), "header": h})
	}
	mux.HandleFunc("GET /v1/items", func(w http.ResponseWriter, r *http.Request) { echo(w, r, 200) })
	mux.HandleFunc("GET /v1/items/{id}", func(w http.ResponseWriter, r *http.Request) { echo(w, r, 200) })
	mux.HandleFunc("POST /v1/items", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Name string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		if in.Name == "" || strings.ContainsAny(in.Name, "<>") {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = io.WriteString(w, `{"title":"Unprocessable Entity","detail":"The item is not valid.","errors":[{"location":"body.name","message":"must be a plain name"}]}`)
			return
		}
		echo(w, r, 201)
	})
	mux.HandleFunc("GET /v1/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("GET /v1/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("x", 32<<10))
		for range 2048 { // 64 MB, unless the client stops reading
			n, err := w.Write(chunk)
			a.huge.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	mux.HandleFunc("GET /v1/broken", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "panic: nil map at items.go:42", http.StatusInternalServerError)
	})
	mux.HandleFunc("GET /v1/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, a.elsewhere.URL+"/v1/items/stolen", http.StatusFound)
	})
	mux.HandleFunc("GET /v1/here", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/v1/items/1", http.StatusFound)
	})
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func loadGatewayDoc(t *testing.T) *openapi.Document {
	t.Helper()
	d, err := openapi.Load(t.Context(), filepath.Join("testdata", "gateway", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// gateway serves the items document as a gateway to base, and returns
// an MCP client of it in the protocol given, sending header with every
// request.
func gateway(t *testing.T, base string, opts *openapi.UpstreamOptions, protocol string, header http.Header) *client.Client {
	t.Helper()
	up, err := openapi.NewUpstream(base, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := ferry.NewServer("items", "1", nil)
	if _, err := openapi.Gateway(srv, up, loadGatewayDoc(t), nil); err != nil {
		t.Fatal(err)
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	c, err := client.DialHandler(t.Context(), ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true}),
		&client.Options{Protocol: protocol, Header: header})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

var protocols = []string{client.Version20260728, "2025-11-25"}

// call calls a tool and returns its text, "error: " first for an error
// result.
func call(t *testing.T, c *client.Client, tool, args string) string {
	t.Helper()
	res, err := c.CallTool(t.Context(), tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	text := strings.TrimSpace(res.Text())
	if res.IsError {
		return "error: " + text
	}
	return text
}

// seenOf decodes what the API saw from a call's text.
func seenOf(t *testing.T, text string) (uri string, header map[string]string) {
	t.Helper()
	var s struct {
		URI    string
		Header map[string]string
	}
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	return s.URI, s.Header
}

// Calls reach the API with their arguments where the document puts them,
// escaped as route-bound tools escape them; hostile values are refused
// before anything is sent, or travel as the data they are.
func TestGatewayCallsAndHostileValues(t *testing.T) {
	api := startItemsAPI(t)
	for _, protocol := range protocols {
		c := gateway(t, api.srv.URL+"/v1", nil, protocol, nil)
		uri, _ := seenOf(t, call(t, c, "get_item", `{"id":"a/b c"}`))
		if uri != "/v1/items/a%2Fb%20c" {
			t.Errorf("%s: an id with a slash reached %q, want /v1/items/a%%2Fb%%20c", protocol, uri)
		}
		uri, h := seenOf(t, call(t, c, "search_items", `{"q":"x&admin=true#frag","X-Client":"cli"}`))
		if uri != "/v1/items?q=x%26admin%3Dtrue%23frag" || h["X-Client"] != "cli" {
			t.Errorf("%s: a query with & reached %q, headers %v", protocol, uri, h)
		}
		before := api.hits.Load()
		for _, tt := range []struct{ tool, args, want string }{
			{"get_item", `{"id":".."}`, "error: invalid arguments:\n- id: must not be \".\" or \"..\": it fills a segment of the route's path"},
			{"get_item", `{"id":"../../admin"}`, "error: invalid arguments:\n- id: must not hold \".\" or \"..\" between slashes: it fills a segment of the route's path"},
			{"search_items", `{"q":"x","X-Client":"a\r\nX-Api-Key: stolen"}`, "error: invalid arguments:\n- X-Client: must not hold control characters: it goes in a header"},
		} {
			if got := call(t, c, tt.tool, tt.args); got != tt.want {
				t.Errorf("%s: %s %s:\ngot  %s\nwant %s", protocol, tt.tool, tt.args, got, tt.want)
			}
		}
		if n := api.hits.Load() - before; n != 0 {
			t.Errorf("%s: %d refused calls reached the API", protocol, n)
		}
	}
}

// The API's refusals are the model's to read, with the field errors at
// the arguments; its failures, an API that cannot be reached or answers
// too late, and a redirect elsewhere are refusals that say so.
func TestGatewayRefusalsAndFailures(t *testing.T) {
	api := startItemsAPI(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String() // nothing answers there once closed
	l.Close()
	for _, protocol := range protocols {
		c := gateway(t, api.srv.URL+"/v1", &openapi.UpstreamOptions{Timeout: 500 * time.Millisecond}, protocol, nil)
		tests := []struct{ tool, args, want string }{
			{"create_item", `{"name":"<b>"}`, "error: invalid: The item is not valid.\n- name: must be a plain name"},
			{"slow", `{}`, "error: unavailable: The API did not answer within 500ms; try again later."},
			{"broken", `{}`, "error: unavailable: The API failed: it answered 500 Internal Server Error."},
			{"moved", `{}`, "error: unavailable: The API redirected the request to another host, which this gateway does not follow."},
		}
		for _, tt := range tests {
			if got := call(t, c, tt.tool, tt.args); got != tt.want {
				t.Errorf("%s: %s:\ngot  %s\nwant %s", protocol, tt.tool, got, tt.want)
			}
		}
		if n := api.elseHits.Load(); n != 0 {
			t.Errorf("%s: the other host was asked %d times", protocol, n)
		}
		uri, _ := seenOf(t, call(t, c, "here", `{}`))
		if uri != "/v1/items/1" {
			t.Errorf("%s: a redirect within the API reached %q", protocol, uri)
		}
		downC := gateway(t, down, nil, protocol, nil)
		if got, want := call(t, downC, "get_item", `{"id":"1"}`), "error: unavailable: The API cannot be reached; try again later."; got != want {
			t.Errorf("%s: API down:\ngot  %s\nwant %s", protocol, got, want)
		}
	}
}

// A huge answer is cut at the bound, the result says so, and the API
// is not read to its end.
func TestGatewayBoundsTheAnswer(t *testing.T) {
	api := startItemsAPI(t)
	c := gateway(t, api.srv.URL+"/v1", &openapi.UpstreamOptions{MaxResponseBytes: 64 << 10}, client.Version20260728, nil)
	got := call(t, c, "huge", `{}`)
	if !strings.HasSuffix(got, "[cut: the answer is longer than 65536 bytes, which is all this tool reads]") || len(got) > 70<<10 {
		t.Errorf("a huge answer: %d bytes, ending %q", len(got), got[max(0, len(got)-120):])
	}
	// The API stops when its client closes the connection; what it wrote
	// by then is in its socket buffers, far from 64 MB.
	deadline := time.Now().Add(5 * time.Second)
	for api.huge.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if n := api.huge.Load(); n > 16<<20 {
		t.Errorf("the API wrote %d bytes of a 64 MB answer: it was read on", n)
	}
}

// The API's credentials come from configuration; the MCP client's own
// never travel unless the operator names the header, and no argument
// can set a credential.
func TestGatewayCredentials(t *testing.T) {
	api := startItemsAPI(t)
	mcpHeader := http.Header{"Authorization": {"Bearer mcp-token"}, "Cookie": {"session=mcp"}}
	for _, protocol := range protocols {
		c := gateway(t, api.srv.URL+"/v1", &openapi.UpstreamOptions{Header: http.Header{"X-Api-Key": {"configured"}}}, protocol, mcpHeader)
		tools, err := c.ListTools(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tools {
			if tl.Name == "search_items" && strings.Contains(string(tl.Raw), "X-Api-Key") {
				t.Errorf("%s: the credential header is an argument: %s", protocol, tl.Raw)
			}
		}
		_, h := seenOf(t, call(t, c, "search_items", `{"q":"x"}`))
		if h["X-Api-Key"] != "configured" || h["Authorization"] != "" || h["Cookie"] != "" || h["Mcp-Session-Id"] != "" || h["Mcp-Tool"] != "" {
			t.Errorf("%s: the API saw %v; want only the configured X-Api-Key of these", protocol, h)
		}
		if h["X-Request-Id"] == "" {
			t.Errorf("%s: no X-Request-Id reached the API: %v", protocol, h)
		}
		got := call(t, c, "search_items", `{"q":"x","X-Api-Key":"model's"}`)
		if !strings.HasPrefix(got, "error: invalid arguments:") {
			t.Errorf("%s: an X-Api-Key argument: %s", protocol, got)
		}

		passing := gateway(t, api.srv.URL+"/v1", &openapi.UpstreamOptions{PassHeaders: []string{"Authorization"}}, protocol, mcpHeader)
		_, h = seenOf(t, call(t, passing, "search_items", `{"q":"x"}`))
		if h["Authorization"] != "Bearer mcp-token" || h["Cookie"] != "" {
			t.Errorf("%s: passing Authorization, the API saw %v", protocol, h)
		}
	}
}

// NewUpstream refuses a base URL that is not one, or that holds
// credentials, and headers that cannot be sent.
func TestNewUpstreamRefusesBadConfiguration(t *testing.T) {
	for _, tt := range []struct {
		base string
		opts *openapi.UpstreamOptions
		want string
	}{
		{"ftp://x", nil, `openapi: the upstream URL "ftp://x": want http:// or https:// and a host`},
		{"http://user:secret@x", nil, `openapi: the upstream URL "http://user:xxxxx@x" holds credentials: give them as a header instead`},
		{"http://x/?a=1", nil, `openapi: the upstream URL "http://x/?a=1" has a query or fragment: give the API's base URL`},
		{"http://x", &openapi.UpstreamOptions{Header: http.Header{"X-Key": {"a\nb"}}}, "openapi: upstream header X-Key: a value must not hold control characters"},
		{"http://x", &openapi.UpstreamOptions{PassHeaders: []string{"Mcp-Session-Id"}}, "openapi: header Mcp-Session-Id cannot be passed to the upstream"},
	} {
		_, err := openapi.NewUpstream(tt.base, tt.opts)
		if err == nil || err.Error() != tt.want {
			t.Errorf("NewUpstream(%q): %v, want %s", tt.base, err, tt.want)
		}
	}
}
