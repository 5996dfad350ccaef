package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// itemsUpstream is the real HTTP service of testdata/items.openapi.yaml
// under /v1: it answers what it saw of each request, and refuses a name
// with a problem document.
func itemsUpstream(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	echo := func(w http.ResponseWriter, r *http.Request, status int) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"uri": r.RequestURI, "body": string(body),
			"key": r.Header.Get("X-Api-Key"), "authorization": r.Header.Get("Authorization")})
	}
	mux.HandleFunc("GET /v1/items/{id}", func(w http.ResponseWriter, r *http.Request) { echo(w, r, 200) })
	mux.HandleFunc("POST /v1/items", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), "taken") {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusConflict)
			_, _ = io.WriteString(w, `{"detail":"An item has this name.","errors":[{"location":"body.name","message":"is taken"}]}`)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		echo(w, r, 201)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// ferry serve -openapi serves a document's operations as tools calling
// the upstream: read-only by default, the API's key from the
// environment, the MCP client's Authorization never passed on.
func TestServeOpenAPI(t *testing.T) {
	up := itemsUpstream(t)
	doc := filepath.Join("testdata", "items.openapi.yaml")
	args := []string{"-openapi", doc, "-upstream", up.URL + "/v1", "-http", "127.0.0.1:0", "-upstream-header-env", "ITEMS_KEY"}
	env := []string{"ITEMS_KEY", "X-Api-Key: k-secret"}

	ro := startServe(t, args, env...)
	if diff := cmp.Diff([]string{"get_item"}, ro.tools(t).names()); diff != "" {
		t.Errorf("read-only tools (-want +got):\n%s", diff)
	}
	for _, want := range []string{"serving 2 of the 2 operations of Items (OpenAPI 3.1.0) from " + up.URL + "/v1",
		"1 tools, read-only: 1 that write are hidden (give -writes to serve them)"} {
		if !strings.Contains(ro.stderr.String(), want) {
			t.Errorf("stderr %q\nwant it to hold %q", ro.stderr.String(), want)
		}
	}

	s := startServe(t, append(args, "-writes"), env...)
	if diff := cmp.Diff([]string{"create_item", "get_item"}, s.tools(t).names()); diff != "" {
		t.Errorf("tools with -writes (-want +got):\n%s", diff)
	}
	res := s.call(t, "get_item", map[string]any{"id": "a/b"}, "Authorization", "Bearer mcp-token")
	if res.IsError || res.Structured["uri"] != "/v1/items/a%2Fb" || res.Structured["key"] != "k-secret" || res.Structured["authorization"] != "" {
		t.Errorf("get_item: %+v", res)
	}
	res = s.call(t, "create_item", map[string]any{"name": "taken"})
	if want := "conflict: An item has this name.\n- name: is taken"; !res.IsError || res.text() != want {
		t.Errorf("create_item: %q, want the refusal %q", res.text(), want)
	}
	res = s.call(t, "get_item", map[string]any{"id": ".."})
	if !res.IsError || !strings.Contains(res.text(), `id: must not be "." or ".."`) {
		t.Errorf("get_item ..: %q", res.text())
	}

	pass := startServe(t, append(args, "-upstream-pass-header", "Authorization"), env...)
	res = pass.call(t, "get_item", map[string]any{"id": "1"}, "Authorization", "Bearer mcp-token")
	if res.Structured["authorization"] != "Bearer mcp-token" {
		t.Errorf("with -upstream-pass-header Authorization the API saw %+v", res.Structured)
	}
}

// What ferry serve -openapi cannot start with is said in one line: a
// large document without a selection lists its tags; a flag without
// the mode it belongs to, or a missing upstream, is a usage error.
func TestServeOpenAPIRefusals(t *testing.T) {
	dir := t.TempDir()
	github := filepath.Join(dir, "api.github.com.json")
	gunzip(t, filepath.Join("..", "..", "openapi", "testdata", "github", "api.github.com.json.gz"), github)
	doc := filepath.Join("testdata", "items.openapi.yaml")
	tests := []struct {
		args []string
		env  []string
		code int
		want string
	}{
		{[]string{"-openapi", github, "-upstream", "https://api.github.com"}, nil, exitFailed,
			"has 1223 operations, more than the 30 a model should choose from: select the jobs that matter, by operation id, tag or \"METHOD /path\" pattern; its tags are repos (204), actions (187), orgs (111)"},
		{[]string{"-openapi", github, "-upstream", "https://api.github.com", "-operations", "isues"}, nil, exitFailed,
			`"isues" matches no operation id, tag or "METHOD /path" of`},
		{[]string{"-openapi", doc}, nil, exitUsage, "-openapi and -proto need -upstream URL"},
		{[]string{"-upstream", "http://127.0.0.1:1"}, nil, exitUsage, "-upstream goes with -openapi FILE or -proto FILE"},
		{[]string{"-openapi", doc, "-upstream", "http://127.0.0.1:1", "-db", "x.db"}, nil, exitUsage, "-db and -db-env serve a database"},
		{[]string{"-openapi", doc, "-upstream", "http://u:p@127.0.0.1:1"}, nil, exitUsage, `holds credentials: give them as a header instead`},
		{[]string{"-openapi", doc, "-upstream", "http://127.0.0.1:1", "-upstream-header-env", "NOPE"}, nil, exitUsage,
			"-upstream-header-env NOPE: $NOPE is empty or unset"},
		{[]string{"-openapi", doc, "-upstream", "http://127.0.0.1:1", "-upstream-header-env", "BAD"}, []string{"BAD", "no colon here"}, exitUsage,
			"-upstream-header-env BAD: $BAD is not a header line"},
	}
	for _, tt := range tests {
		code, stderr := failServe(t, tt.args, tt.env...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("ferry serve %q: exit %d, stderr %q\nwant exit %d and %q", tt.args, code, stderr, tt.code, tt.want)
		}
		if strings.Contains(stderr, "no colon here") {
			t.Errorf("the error quotes the variable's value: %s", stderr)
		}
	}
}

// ferry lint -openapi says what a model would see of a document's
// operations, and what cannot be served, before anyone serves it.
func TestLintOpenAPI(t *testing.T) {
	doc := filepath.Join("..", "..", "openapi", "testdata", "pets", "openapi.yaml")
	code, stdout, stderr := runFerry(t, []string{"lint", "-openapi", doc, "-operations", "store,createPet"})
	want := []string{
		`tool create_pet: the input schema holds anyOf, oneOf or a list of types: it is sent as it is, and the service checks the arguments [openapi-changed]`,
		`tool get_category: the operation has no summary or description: its tool says only which route it calls [openapi-changed]`,
		`tool get_category: output.parent.parent: #/Category holds itself; cut after 2 levels, below which its fields are not described [openapi-changed]`,
		`operation "getFile (GET /files/{name}.json)": cannot be served: path segment "{name}.json" holds a parameter and other text: a tool fills whole segments only [openapi-unservable]`,
		`tool create_pet: description is 11 characters; say what it does and when to use it in at least 20 [description-short]`,
		`tool create_pet: input properties kind have no description [property-description-missing]`,
		`tool get_category: has no title (title or annotations.title) for clients to show [title-missing]`,
		`tool get_category: input properties id have no description [property-description-missing]`,
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(stdout), "\n")); diff != "" || code != exitFailed {
		t.Errorf("exit %d, stdout (-want +got):\n%s", code, diff)
	}
	if !strings.Contains(stderr, "lint: 8 problems in 2 tools from 3 of the 9 operations of") {
		t.Errorf("stderr %q", stderr)
	}
	code, _, stderr = runFerry(t, []string{"lint", "-openapi", doc, "-operations", "getPet", "-ignore", "openapi-changed,description-short"})
	if code != exitOK || !strings.Contains(stderr, "no problems in 1 tools from 1 of the 9 operations") {
		t.Errorf("lint getPet: exit %d, stderr %q", code, stderr)
	}
	if code, stdout, _ := runFerry(t, []string{"help", "lint"}); code != exitOK || !strings.Contains(stdout, "ferry lint -openapi FILE|URL") ||
		!slices.ContainsFunc(strings.Split(stdout, "\n"), func(l string) bool { return strings.Contains(l, "openapi-unservable") }) {
		t.Errorf("help lint: exit %d: %s", code, stdout)
	}
}

// gunzip writes the gzipped file src, uncompressed, to dst.
func gunzip(t *testing.T, src, dst string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
}
