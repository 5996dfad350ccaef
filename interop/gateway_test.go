package interop

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gatewayDoc is the OpenAPI document of the items API the gateway tests
// start, shared with package openapi's tests and the TypeScript ones.
var gatewayDoc = filepath.Join("..", "openapi", "testdata", "gateway", "openapi.yaml")

// buildFerry builds ./cmd/ferry, its own module, into dir.
func buildFerry(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "ferry")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join("..", "cmd", "ferry")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/ferry: %v\n%s", err, out)
	}
	return bin
}

// itemsAPI is a real HTTP service on loopback that the gateway document
// describes, under /v1: it echoes what it saw, refuses with problem
// documents, stalls, answers without end, fails and redirects.
type itemsAPI struct {
	url           string
	hits, huge    atomic.Int64
	elsewhereHits atomic.Int64
	elsewhereURL  string
}

func startItemsAPI(t *testing.T) *itemsAPI {
	t.Helper()
	a := &itemsAPI{}
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { a.elsewhereHits.Add(1) }))
	t.Cleanup(elsewhere.Close)
	a.elsewhereURL = elsewhere.URL
	mux := http.NewServeMux()
	echo := func(w http.ResponseWriter, r *http.Request, status int) {
		body, _ := io.ReadAll(r.Body)
		h := map[string]string{}
		for _, k := range []string{"X-Api-Key", "X-Client", "Authorization", "Cookie", "Mcp-Session-Id"} {
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
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = io.WriteString(w, `{"detail":"The item is not valid.","errors":[{"location":"body.name","message":"must be a plain name"}]}`)
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
		for range 2048 {
			n, err := w.Write(chunk)
			a.huge.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	mux.HandleFunc("GET /v1/broken", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "panic at items.go:42", http.StatusInternalServerError)
	})
	mux.HandleFunc("GET /v1/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, a.elsewhereURL+"/v1/items/stolen", http.StatusFound)
	})
	mux.HandleFunc("GET /v1/here", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/v1/items/1", http.StatusFound)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	a.url = srv.URL
	return a
}

// startGateway runs "ferry serve -openapi" of the items document against
// upstream on a free loopback port, with the environment pairs given, and
// returns its MCP endpoint. It is interrupted when t ends.
func startGateway(t *testing.T, bin, upstream string, env []string, args ...string) string {
	t.Helper()
	addr := freeAddr(t)
	stderr := new(ferrytest.Buffer)
	all := append([]string{"serve", "-openapi", gatewayDoc, "-upstream", upstream, "-http", addr, "-writes",
		"-upstream-timeout", "1s", "-upstream-max-bytes", "65536"}, args...)
	cmd := exec.CommandContext(t.Context(), bin, all...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = stopTimeout
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		<-exited
		if t.Failed() {
			t.Logf("ferry serve stderr:\n%s", stderr)
		}
	})
	if err := waitListening(t.Context(), addr, exited); err != nil {
		t.Fatalf("ferry serve: %v\n%s", err, stderr)
	}
	return "http://" + addr + "/mcp"
}

// withHeader sends a header with every request, as an MCP client
// configured with its own credentials does.
type withHeader struct{ name, value string }

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// The official Go SDK client, in both eras, against ferry serve -openapi
// in front of a real HTTP service: calls, the API's refusals, an API that
// is slow, huge, failing, down or redirecting elsewhere, hostile values,
// and the credential rules.
func TestGoSDKClientThroughTheOpenAPIGateway(t *testing.T) {
	bin := buildFerry(t, t.TempDir())
	api := startItemsAPI(t)
	key := []string{"ITEMS_KEY=X-Api-Key: k-configured"}
	mcpAuth := &http.Client{Transport: withHeader{"Authorization", "Bearer mcp-client-token"}}
	gw := startGateway(t, bin, api.url+"/v1", key, "-upstream-header-env", "ITEMS_KEY")
	passing := startGateway(t, bin, api.url+"/v1", key, "-upstream-header-env", "ITEMS_KEY", "-upstream-pass-header", "Authorization")
	down := startGateway(t, bin, "http://"+freeAddr(t), nil)
	for _, version := range []string{"", v20251125} {
		t.Run(stdcmpOr(version, modernVersion), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
			defer cancel()
			cs := connectOrders(ctx, t, &mcp.StreamableClientTransport{Endpoint: gw, HTTPClient: mcpAuth}, version)
			seen := func(name string, args map[string]any) map[string]any {
				var s map[string]any
				if err := json.Unmarshal([]byte(callText(ctx, t, cs, name, args, false)), &s); err != nil {
					t.Fatal(err)
				}
				return s
			}
			s := seen("get_item", map[string]any{"id": "a/b c"})
			if s["uri"] != "/v1/items/a%2Fb%20c" {
				t.Errorf("get_item a/b c reached %v", s["uri"])
			}
			s = seen("search_items", map[string]any{"q": "x&admin=true"})
			h, _ := s["header"].(map[string]any)
			if s["uri"] != "/v1/items?q=x%26admin%3Dtrue" || h["X-Api-Key"] != "k-configured" || h["Authorization"] != nil || h["Mcp-Session-Id"] != nil {
				t.Errorf("search_items: the API saw %v", s)
			}
			if s := seen("here", nil); s["uri"] != "/v1/items/1" {
				t.Errorf("a redirect within the API reached %v", s["uri"])
			}
			hits := api.hits.Load()
			for _, tt := range []struct {
				name string
				args map[string]any
				want string
			}{
				{"get_item", map[string]any{"id": "../../admin"}, "invalid arguments:\n- id: must not hold \".\" or \"..\" between slashes: it fills a segment of the route's path"},
				{"search_items", map[string]any{"q": "x", "X-Client": "a\r\nX-Api-Key: stolen"}, "invalid arguments:\n- X-Client: must not hold control characters: it goes in a header"},
			} {
				if got := callText(ctx, t, cs, tt.name, tt.args, true); got != tt.want {
					t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
				}
			}
			if n := api.hits.Load() - hits; n != 0 {
				t.Errorf("%d refused calls reached the API", n)
			}
			for _, tt := range []struct{ name, want string }{
				{"create_item", "invalid: The item is not valid.\n- name: must be a plain name"},
				{"slow", "unavailable: The API did not answer within 1s; try again later."},
				{"broken", "unavailable: The API failed: it answered 500 Internal Server Error."},
				{"moved", "unavailable: The API redirected the request to another host, which this gateway does not follow."},
			} {
				args := map[string]any{}
				if tt.name == "create_item" {
					args["name"] = "<b>"
				}
				if got := callText(ctx, t, cs, tt.name, args, true); got != tt.want {
					t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
				}
			}
			if n := api.elsewhereHits.Load(); n != 0 {
				t.Errorf("the other host was asked %d times", n)
			}
			huge := callText(ctx, t, cs, "huge", nil, false)
			if !strings.HasSuffix(huge, "[cut: the answer is longer than 65536 bytes, which is all this tool reads]") || len(huge) > 70<<10 {
				t.Errorf("huge: %d bytes", len(huge))
			}
			if n := api.huge.Load(); n > 16<<20 {
				t.Errorf("the API wrote %d bytes of its 64 MB answer", n)
			}

			downCS := connectOrders(ctx, t, &mcp.StreamableClientTransport{Endpoint: down}, version)
			if got, want := callText(ctx, t, downCS, "get_item", map[string]any{"id": "1"}, true), "unavailable: The API cannot be reached; try again later."; got != want {
				t.Errorf("API down: %q, want %q", got, want)
			}

			passCS := connectOrders(ctx, t, &mcp.StreamableClientTransport{Endpoint: passing, HTTPClient: mcpAuth}, version)
			var ps map[string]any
			if err := json.Unmarshal([]byte(callText(ctx, t, passCS, "search_items", map[string]any{"q": "x"}, false)), &ps); err != nil {
				t.Fatal(err)
			}
			if h, _ := ps["header"].(map[string]any); h["Authorization"] != "Bearer mcp-client-token" {
				t.Errorf("with -upstream-pass-header Authorization the API saw %v", ps["header"])
			}
		})
	}
}

func stdcmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
