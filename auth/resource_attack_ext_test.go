package auth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
)

// The metadata of a resource at a nested path (/v1/mcp) is served at the
// path-inserted form, and the challenge names it.
func TestAttackMetadataOfANestedPath(t *testing.T) {
	res, err := auth.NewResource("https://api.example.com/v1/mcp", []string{testIssuer}, &auth.ResourceOptions{Scopes: []string{"orders:read", "offline_access"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "https://api.example.com/.well-known/oauth-protected-resource/v1/mcp"; res.MetadataURL() != want {
		t.Errorf("MetadataURL %q, want %q", res.MetadataURL(), want)
	}
	mux := http.NewServeMux()
	res.Mount(mux)
	mw := auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{auth.APIKeys(func(context.Context, string) (*ferry.Principal, error) { return nil, nil }, nil)},
		Resource: res, Logger: discard})
	mux.Handle("/v1/mcp", mw(http.NotFoundHandler()))
	for _, tt := range []struct {
		method, path string
		status       int
		allow, cors  string
	}{
		{"GET", "/.well-known/oauth-protected-resource/v1/mcp", 200, "", "*"},
		{"HEAD", "/.well-known/oauth-protected-resource/v1/mcp", 200, "", "*"},
		{"OPTIONS", "/.well-known/oauth-protected-resource/v1/mcp", 204, "", "*"},
		{"GET", "/.well-known/oauth-protected-resource", 200, "", "*"},
		{"POST", "/.well-known/oauth-protected-resource/v1/mcp", 405, "GET, HEAD, OPTIONS", ""},
		{"DELETE", "/.well-known/oauth-protected-resource/v1/mcp", 405, "GET, HEAD, OPTIONS", ""},
		{"GET", "/.well-known/oauth-protected-resource/v2/mcp", 404, "", ""},
	} {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, nil))
		if w.Code != tt.status || w.Header().Get("Allow") != tt.allow || w.Header().Get("Access-Control-Allow-Origin") != tt.cors {
			t.Errorf("%s %s: %d, Allow %q, CORS %q; want %d, %q, %q", tt.method, tt.path, w.Code,
				w.Header().Get("Allow"), w.Header().Get("Access-Control-Allow-Origin"), tt.status, tt.allow, tt.cors)
		}
		if tt.method == "GET" && tt.status == 200 {
			var doc struct {
				Resource        string   `json:"resource"`
				ScopesSupported []string `json:"scopes_supported"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || doc.Resource != res.URI() ||
				strings.Join(doc.ScopesSupported, " ") != "orders:read" {
				t.Errorf("%s: document %s (%v)", tt.path, w.Body, err)
			}
		}
	}
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("POST", "/v1/mcp", nil))
	if want := `Bearer resource_metadata="` + res.MetadataURL() + `"`; w.Code != 401 || w.Header().Get("WWW-Authenticate") != want {
		t.Errorf("POST /v1/mcp: %d %q, want 401 %q", w.Code, w.Header().Get("WWW-Authenticate"), want)
	}
}
