package openapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/ferry-mcp/ferry/openapi"
	"github.com/ferry-mcp/ferry/route"
	"github.com/google/go-cmp/cmp"
)

// petsAPI is the service testdata/pets/openapi.yaml describes, under
// /api: each route answers what it saw, and refuses as a real service
// does, with problem documents.
func petsAPI() *http.ServeMux {
	mux := http.NewServeMux()
	seen := func(w http.ResponseWriter, r *http.Request, status int, extra map[string]any) {
		body, _ := io.ReadAll(r.Body)
		out := map[string]any{"method": r.Method, "uri": r.RequestURI, "body": string(body)}
		if v := r.Header.Get("X-Request-Tag"); v != "" {
			out["tag"] = v
		}
		if v := r.Header.Get("Idempotency-Key"); v != "" {
			out["key"] = v
		}
		if tool, ok := route.FromAgent(r); ok {
			out["tool"] = tool
		}
		for k, v := range extra {
			out[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(out)
	}
	problem := func(w http.ResponseWriter, status int, detail string, errs ...map[string]string) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"title": http.StatusText(status), "detail": detail, "errors": errs})
	}
	mux.HandleFunc("GET /api/pets", func(w http.ResponseWriter, r *http.Request) { seen(w, r, 200, nil) })
	mux.HandleFunc("POST /api/pets", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Name string }
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &in)
		if in.Name == "Taken" {
			problem(w, http.StatusConflict, "A pet is called Taken already.", map[string]string{"location": "body.name", "message": "is taken"})
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		seen(w, r, 201, nil)
	})
	mux.HandleFunc("GET /api/pets/{pet_id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("pet_id") != "1" {
			problem(w, http.StatusNotFound, "No pet "+r.PathValue("pet_id")+".")
			return
		}
		seen(w, r, 200, nil)
	})
	mux.HandleFunc("PUT /api/pets/{pet_id}", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("name") == "stale" {
			problem(w, http.StatusPreconditionFailed, "The pet was renamed.", map[string]string{"location": "query.name", "message": "is not its name any more"})
			return
		}
		seen(w, r, 200, nil)
	})
	mux.HandleFunc("DELETE /api/pets/{pet_id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("PUT /api/pets/{pet_id}/tags", func(w http.ResponseWriter, r *http.Request) { seen(w, r, 200, nil) })
	mux.HandleFunc("GET /api/categories/{id}", func(w http.ResponseWriter, r *http.Request) { seen(w, r, 200, map[string]any{"name": "x"}) })
	return mux
}

// servable is the selection of the pets document that can be served.
var servable = []string{"!uploadPhoto", "!getFile"}

// In process, each operation's tool calls the service's own handler:
// path, query, header and body filled by the document's names, the
// service's refusals read with the arguments' names, in both eras.
func TestBindCallsTheServiceInProcess(t *testing.T) {
	srv := ferry.NewServer("pets", "1.0.0", nil)
	b, err := openapi.Bind(srv, petsAPI(), loadPets(t), &openapi.Options{Select: servable, ClosedWorld: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(b.Tools()); n != 7 {
		t.Errorf("%d tools, want 7", n)
	}
	tests := []struct {
		name, tool, args string
		want             string // the text, or "error: " and the error text
	}{
		{"query array, renamed parameter and a header", "list_pets", `{"kind":["cat","dog"],"page_size":5,"X-Request-Tag":"t1"}`,
			`{"body":"","method":"GET","tag":"t1","tool":"list_pets","uri":"/api/pets?kind=cat\u0026kind=dog\u0026page%5Bsize%5D=5"}`},
		{"a body merged with a header", "create_pet", `{"name":"Rex","kind":"dog","Idempotency-Key":"k1"}`,
			`{"body":"{\"name\":\"Rex\",\"kind\":\"dog\"}","key":"k1","method":"POST","tool":"create_pet","uri":"/api/pets"}`},
		{"the service's refusal names the argument", "create_pet", `{"name":"Taken","kind":"cat"}`,
			"error: conflict: A pet is called Taken already.\n- name: is taken"},
		{"a renamed query parameter is named as the argument", "replace_pet", `{"pet_id":1,"query_name":"stale","name":"Rex","kind":"dog"}`,
			"error: conflict: The pet was renamed.\n- query_name: is not its name any more"},
		{"the path parameter fills its segment", "get_pet", `{"pet_id":1}`,
			`{"body":"","method":"GET","tool":"get_pet","uri":"/api/pets/1"}`},
		{"not found", "get_pet", `{"pet_id":2}`, "error: not-found: No pet 2."},
		{"checked by the server first, every violation listed", "list_pets", `{"kind":["cow"],"page_size":500}`,
			"error: invalid arguments:\n- kind[0]: must be one of: \"cat\", \"dog\", \"fish\", got \"cow\"\n- page_size: must be at most 100, got 500"},
		{"an array body", "tag_pet", `{"pet_id":1,"body":["a","b"]}`,
			`{"body":"[\"a\",\"b\"]","method":"PUT","tool":"tag_pet","uri":"/api/pets/1/tags"}`},
		{"no content", "delete_pet", `{"pet_id":1}`, route.DoneText},
	}
	for _, protocol := range []string{client.Version20260728, "2025-11-25"} {
		c := ferrytest.NewClient(t, srv, &ferrytest.Options{Protocol: protocol})
		for _, tt := range tests {
			t.Run(protocol+"/"+tt.name, func(t *testing.T) {
				res := c.CallTool(t.Context(), tt.tool, json.RawMessage(tt.args))
				got := strings.TrimSpace(res.Text())
				if res.IsError {
					got = "error: " + got
				}
				if got != tt.want {
					t.Errorf("got  %s\nwant %s", got, tt.want)
				}
			})
		}
	}
}

// An operation that cannot be served, and a route the handler does not
// serve, fail start-up, naming the operation or the tool.
func TestBindReportsWhatCannotBeServed(t *testing.T) {
	srv := ferry.NewServer("pets", "1.0.0", nil)
	mux := petsAPI()
	if _, err := openapi.Bind(srv, mux, loadPets(t), nil, nil); err != nil {
		t.Fatal(err)
	}
	err := srv.Check()
	for _, want := range []string{
		"openapi: operation uploadPhoto (POST /photos): body: the request body is multipart/form-data, and a tool sends JSON only",
		`openapi: operation getFile (GET /files/{name}.json): path segment "{name}.json" holds a parameter and other text: a tool fills whole segments only`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check: %v\nwant it to hold %s", err, want)
		}
	}

	srv = ferry.NewServer("pets", "1.0.0", nil)
	if _, err := openapi.Bind(srv, http.NewServeMux(), loadPets(t), &openapi.Options{Select: []string{"getPet"}}, nil); err != nil {
		t.Fatal(err)
	}
	err = srv.Check()
	want := `route: tool "get_pet", route "GET /api/pets/{pet_id}": the mux serves no such route`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Check: %v\nwant it to hold %s", err, want)
	}
}

// The tools list shows what the document says: names, descriptions,
// hints from the method with the operation's own added.
func TestBindListsTheTools(t *testing.T) {
	srv := ferry.NewServer("pets", "1.0.0", nil)
	_, err := openapi.Bind(srv, petsAPI(), loadPets(t), &openapi.Options{Select: servable,
		Tools: map[string]openapi.ToolOptions{"createPet": {Additive: true}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	type hints struct{ ReadOnly, Destructive, Idempotent bool }
	got := map[string]hints{}
	for _, tl := range ferrytest.NewClient(t, srv, nil).ListTools(t.Context()) {
		var raw struct {
			Annotations struct{ ReadOnlyHint, DestructiveHint, IdempotentHint bool }
		}
		if err := json.Unmarshal(tl.Raw, &raw); err != nil {
			t.Fatal(err)
		}
		a := raw.Annotations
		got[tl.Name] = hints{a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint}
	}
	want := map[string]hints{
		"list_pets": {ReadOnly: true, Idempotent: true}, "get_pet": {ReadOnly: true, Idempotent: true},
		"get_category": {ReadOnly: true, Idempotent: true},
		"create_pet":   {}, "replace_pet": {Destructive: true, Idempotent: true},
		"delete_pet": {Destructive: true, Idempotent: true}, "tag_pet": {Destructive: true, Idempotent: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hints (-want +got):\n%s", diff)
	}
}

// A job tool on the binding asks several of the service's routes, under
// the document's server path, as the derived tools do.
func TestBindJobToolsAskSeveralRoutes(t *testing.T) {
	srv := ferry.NewServer("pets", "1.0.0", nil)
	b, err := openapi.Bind(srv, petsAPI(), loadPets(t), &openapi.Options{Select: []string{"getPet"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	type in struct {
		IDs []string `json:"ids" doc:"The pets to look up."`
	}
	type out struct {
		Found   []string `json:"found" doc:"The pets that exist."`
		Missing []string `json:"missing" doc:"The pets that do not."`
	}
	route.AddJob(b.Binding, ferry.Tool{Name: "check_pets", Description: "Says which of some pets exist.", ReadOnly: true},
		func(ctx context.Context, p in) (out, error) {
			o := out{Found: []string{}, Missing: []string{}}
			for _, id := range p.IDs {
				a, err := route.Ask(ctx, "GET /pets/"+url.PathEscape(id), nil)
				if err != nil {
					return o, err
				}
				if a.IsError() {
					o.Missing = append(o.Missing, id)
				} else {
					o.Found = append(o.Found, id)
				}
			}
			return o, nil
		})
	c := ferrytest.NewClient(t, srv, nil)
	got, _ := ferrytest.Call[out](t, c, "check_pets", map[string]any{"ids": []string{"1", "2"}})
	if diff := cmp.Diff(out{Found: []string{"1"}, Missing: []string{"2"}}, got); diff != "" {
		t.Errorf("check_pets (-want +got):\n%s", diff)
	}
}
