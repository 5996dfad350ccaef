package openapi_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/openapi"
	"github.com/google/go-cmp/cmp"
)

// updating reports whether -update was given (the flag ferrytest
// registers for its golden transcripts): the golden files of the tools
// derived from testdata are then rewritten.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// toolView is what a golden file shows of a derived tool.
type toolView struct {
	Name        string            `json:"name"`
	Operation   string            `json:"operation"`
	Route       string            `json:"route"`
	In          map[string]string `json:"in,omitempty"`
	Description string            `json:"description"`
	Groups      []string          `json:"groups,omitempty"`
	Hints       map[string]bool   `json:"hints,omitempty"`
	Checked     bool              `json:"checked"`
	Input       json.RawMessage   `json:"input"`
	Output      json.RawMessage   `json:"output,omitempty"`
	Notes       []string          `json:"notes,omitempty"`
	Err         string            `json:"err,omitempty"`
}

func viewOf(t *testing.T, tl *openapi.Tool) toolView {
	t.Helper()
	v := toolView{Name: tl.Tool.Name, Operation: tl.Operation.String(), Route: tl.Route, In: tl.In,
		Description: tl.Tool.Description, Groups: tl.Tool.Groups, Checked: tl.Checked, Notes: tl.Notes}
	hints := map[string]bool{"readOnly": tl.Tool.ReadOnly, "additive": tl.Tool.Additive, "idempotent": tl.Tool.Idempotent, "closedWorld": tl.Tool.ClosedWorld}
	for k, on := range hints {
		if on {
			if v.Hints == nil {
				v.Hints = map[string]bool{}
			}
			v.Hints[k] = true
		}
	}
	var err error
	if v.Input, err = schemaJSON(tl.Tool.InputSchema, tl.Tool.RawInputSchema); err != nil {
		t.Fatal(err)
	}
	if v.Output, err = schemaJSON(tl.Tool.OutputSchema, tl.Tool.RawOutputSchema); err != nil {
		t.Fatal(err)
	}
	if tl.Err != nil {
		v.Err = tl.Err.Error()
	}
	return v
}

func schemaJSON[S any](s *S, raw json.RawMessage) (json.RawMessage, error) {
	if s != nil {
		return json.Marshal(s)
	}
	return raw, nil
}

// golden compares got, as indented JSON, with the file path, or rewrites
// it under -update.
func golden(t *testing.T, path string, got any) {
	t.Helper()
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	if updating() {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), string(data)); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}

func loadPets(t *testing.T) *openapi.Document {
	t.Helper()
	d, err := openapi.Load(t.Context(), filepath.Join("testdata", "pets", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Every rule of the conversion has an operation in the hand-written
// document; its tools are held to a golden file: names, routes, where
// each argument goes, the schemas, the notes and the problems.
func TestPetsToolsAreExact(t *testing.T) {
	d := loadPets(t)
	if d.Version() != "3.1.0" || d.Title() != "Pets" || d.ServerPath() != "/api" {
		t.Errorf("version %q, title %q, server path %q", d.Version(), d.Title(), d.ServerPath())
	}
	tools, err := d.Tools(&openapi.Options{Tools: map[string]openapi.ToolOptions{
		"createPet": {Additive: true, Title: "Add a pet"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var views []toolView
	for _, tl := range tools {
		views = append(views, viewOf(t, tl))
	}
	golden(t, filepath.Join("testdata", "pets", "tools.golden.json"), views)
}

// The Petstore (testdata/petstore) converts without a problem; its two
// optional bodies that are not JSON (a form, a file) are left out, each
// with a note.
func TestPetstoreTools(t *testing.T) {
	d, err := openapi.Load(t.Context(), filepath.Join("testdata", "petstore", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := d.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	var views []toolView
	for _, tl := range tools {
		views = append(views, viewOf(t, tl))
	}
	golden(t, filepath.Join("testdata", "petstore", "tools.golden.json"), views)
}

func TestSelection(t *testing.T) {
	d := loadPets(t)
	tests := []struct {
		sel  []string
		want []string // operation ids, or the error's start
	}{
		{nil, []string{"listPets", "createPet", "getPet", "replacePet", "deletePet", "tagPet", "getCategory", "uploadPhoto", "getFile"}},
		{[]string{"store"}, []string{"getCategory", "getFile"}},
		{[]string{"pets", "!deletePet", "!POST /photos"}, []string{"listPets", "createPet", "getPet", "replacePet", "tagPet"}},
		{[]string{"GET /pets/*"}, []string{"getPet"}},
		{[]string{"* /pets/*"}, []string{"getPet", "replacePet", "deletePet"}},
		{[]string{"!pets"}, []string{"getCategory", "getFile"}},
		{[]string{"getPet", "getPet"}, []string{"getPet"}},
		{[]string{"getPets"}, []string{`error: openapi: "getPets" matches no operation id, tag or "METHOD /path" of testdata/pets/openapi.yaml; its tags are pets (7), store (2)`}},
	}
	for _, tt := range tests {
		ops, err := d.Select(tt.sel)
		var got []string
		if err != nil {
			got = []string{"error: " + err.Error()}
		}
		for _, o := range ops {
			got = append(got, o.ID)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Select(%q) (-want +got):\n%s", tt.sel, diff)
		}
	}
}

// A document of more than MaxUnselected operations needs a selection;
// the error lists its tags, most operations first, to choose from.
func TestLargeDocumentNeedsASelection(t *testing.T) {
	d := loadGitHub(t)
	_, err := d.Tools(nil)
	if err == nil {
		t.Fatal("Tools(nil) of 1,000 operations passed")
	}
	for _, want := range []string{
		"has 1223 operations, more than the 30 a model should choose from: select the jobs that matter, by operation id, tag or \"METHOD /path\" pattern; its tags are ",
		"repos (2",
		"issues (",
		"repos (204), actions (187), orgs (111), issues (58)", "and 7 more",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nwant it to hold %q", err, want)
		}
	}
	tools, err := d.Tools(&openapi.Options{Select: []string{"issues/create", "issues/get", "issues/list-for-repo", "GET /repos/{owner}/{repo}/contents/{path}"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		if tl.Err != nil {
			t.Errorf("%s: %v", tl.Operation, tl.Err)
		}
		names = append(names, tl.Tool.Name)
	}
	if diff := cmp.Diff([]string{"repos_get_content", "issues_list_for_repo", "issues_create", "issues_get"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}
