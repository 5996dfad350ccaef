package auth_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry/auth"
)

// The metadata is served at the path-inserted and the root well-known
// paths, to GET and HEAD, with CORS for any origin, and holds what RFC
// 9728 and MCP ask for, without offline_access.
func TestResourceMetadata(t *testing.T) {
	res, err := auth.NewResource(testResource, []string{testIssuer}, &auth.ResourceOptions{
		Scopes: []string{"orders:read", "offline_access"}, Name: "Orders",
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.MetadataURL() != testMetadata {
		t.Errorf("MetadataURL = %q, want %q", res.MetadataURL(), testMetadata)
	}
	mux := http.NewServeMux()
	res.Mount(mux)
	const doc = `{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://login.example.com"],` +
		`"scopes_supported":["orders:read"],"bearer_methods_supported":["header"],"resource_name":"Orders"}`
	tests := []struct {
		method, path string
		status       int
		body, cors   string
	}{
		{"GET", "/.well-known/oauth-protected-resource/mcp", 200, doc, "*"},
		{"GET", "/.well-known/oauth-protected-resource", 200, doc, "*"},
		{"HEAD", "/.well-known/oauth-protected-resource/mcp", 200, "", "*"},
		{"OPTIONS", "/.well-known/oauth-protected-resource/mcp", 204, "", "*"},
		{"POST", "/.well-known/oauth-protected-resource/mcp", 405, "method not allowed\n", ""},
		{"GET", "/.well-known/oauth-protected-resource/other", 404, "404 page not found\n", ""},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(tt.method, "http://mcp.example.com"+tt.path, nil))
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != tt.status || string(body) != tt.body || rec.Header().Get("Access-Control-Allow-Origin") != tt.cors {
			t.Errorf("%s %s: %d %q cors %q; want %d %q cors %q", tt.method, tt.path, rec.Code, body,
				rec.Header().Get("Access-Control-Allow-Origin"), tt.status, tt.body, tt.cors)
		}
	}
}

func TestNewResourceRefusesBadConfiguration(t *testing.T) {
	tests := []struct {
		name, uri string
		servers   []string
		scopes    []string
		want      string
	}{
		{"relative URI", "/mcp", []string{testIssuer}, nil, `auth: resource "/mcp" is not an absolute http or https URL`},
		{"fragment", testResource + "#x", []string{testIssuer}, nil, `auth: resource "https://mcp.example.com/mcp#x" has a query, a fragment or user info`},
		{"no authorization server", testResource, nil, nil, "auth: a resource needs at least one authorization server"},
		{"bad authorization server", testResource, []string{"login"}, nil, `auth: authorization server "login" is not an absolute http or https URL`},
		{"scope with a quote", testResource, []string{testIssuer}, []string{`a"b`}, `auth: scope "a\"b" has a character a scope may not`},
	}
	for _, tt := range tests {
		_, err := auth.NewResource(tt.uri, tt.servers, &auth.ResourceOptions{Scopes: tt.scopes})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestResourceAtTheRoot(t *testing.T) {
	res, err := auth.NewResource("https://mcp.example.com", []string{testIssuer}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/.well-known/oauth-protected-resource"}, res.MetadataPaths()); diff != "" {
		t.Error(diff)
	}
	if got := res.MetadataURL(); got != "https://mcp.example.com/.well-known/oauth-protected-resource" {
		t.Errorf("MetadataURL = %q", got)
	}
	if strings.Contains(string(must(t, res)), "scopes_supported") {
		t.Error("an empty scopes_supported is sent")
	}
}

func must(t *testing.T, res *auth.Resource) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	res.MetadataHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	return rec.Body.Bytes()
}
