package workbench_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
	"github.com/ferry-mcp/ferry/workbench"
)

// TestCatalogNamesOnlyWhatTheCallerMayCall checks catalog.json: each tool
// the caller may call with its groups, scopes and roles, a tool hidden
// from him absent, and nothing without the credential.
func TestCatalogNamesOnlyWhatTheCallerMayCall(t *testing.T) {
	srv := ferry.NewServer("wb-catalog", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	add := func(tool ferry.Tool) {
		ferry.AddTool(srv, tool, func(context.Context, echoIn) (echoOut, error) { return echoOut{}, nil })
	}
	add(ferry.Tool{Name: "open_tool", Description: "Open.", ReadOnly: true, Groups: []string{"pub"}})
	add(ferry.Tool{Name: "admin_tool", Description: "Admin.", ReadOnly: true, Groups: []string{"ops"}, Scopes: []string{"admin"}})
	add(ferry.Tool{Name: "boss_tool", Description: "Boss.", ReadOnly: true, Roles: []string{"boss"}})
	const plainKey, adminKey = "plain-key-0123456789", "admin-key-0123456789"
	keys, err := auth.NewStaticKeys(map[string]*ferry.Principal{
		plainKey: {Subject: "plain"},
		adminKey: {Subject: "admin", Scopes: []string{"admin"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	mw := auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{auth.APIKeys(keys.Lookup, nil)},
		Logger: slog.New(slog.DiscardHandler)})
	h := ferry.NewHTTPHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mw(h))
	workbench.New(h, &workbench.Options{Server: srv, Auth: mw}).Mount(mux, "/ui")
	s := &site{mux: mux, mcp: h, srv: srv}

	type entry struct {
		Groups []string `json:"groups"`
		Scopes []string `json:"scopes"`
		Roles  []string `json:"roles"`
	}
	read := func(key string) (int, map[string]entry) {
		t.Helper()
		hd := http.Header{}
		if key != "" {
			hd.Set("Authorization", "Bearer "+key)
		}
		res := s.get(t, http.MethodGet, "/ui/catalog.json", hd)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			return res.StatusCode, nil
		}
		if res.Header.Get("Content-Security-Policy") != workbench.ContentSecurityPolicy {
			t.Errorf("catalog.json without the policy: %q", res.Header.Get("Content-Security-Policy"))
		}
		var got struct {
			Tools map[string]entry `json:"tools"`
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("catalog.json: %v: %s", err, body)
		}
		return res.StatusCode, got.Tools
	}
	if code, _ := read(""); code != http.StatusUnauthorized {
		t.Errorf("catalog.json without a key: %d, want 401", code)
	}
	_, plain := read(plainKey)
	if want := map[string]entry{"open_tool": {Groups: []string{"pub"}}}; !reflect.DeepEqual(plain, want) {
		t.Errorf("a caller without scope or role reads %+v, want %+v", plain, want)
	}
	_, admin := read(adminKey)
	want := map[string]entry{
		"open_tool":  {Groups: []string{"pub"}},
		"admin_tool": {Groups: []string{"ops"}, Scopes: []string{"admin"}},
	}
	if !reflect.DeepEqual(admin, want) {
		t.Errorf("the admin reads %+v, want %+v", admin, want)
	}

	res := s.get(t, http.MethodGet, "/ui/config.json", nil)
	body, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(body), `"catalog":"catalog.json"`) {
		t.Errorf("config.json does not name the catalog: %s", body)
	}
}

// TestNoCatalogWithoutServer checks that a workbench not given its server
// names no catalog and serves none.
func TestNoCatalogWithoutServer(t *testing.T) {
	s := newSite(t, nil)
	res := s.get(t, http.MethodGet, "/ui/config.json", nil)
	body, _ := io.ReadAll(res.Body)
	if strings.Contains(string(body), "catalog") {
		t.Errorf("config.json names a catalog: %s", body)
	}
	res = s.get(t, http.MethodGet, "/ui/catalog.json", http.Header{"Authorization": {"Bearer " + readerKey}})
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("catalog.json without a server: %d, want 404", res.StatusCode)
	}
}
