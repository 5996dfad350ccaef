package route_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
	"github.com/ferry-mcp/ferry/schema"
	"github.com/google/go-cmp/cmp"
)

// placedService serves the echo route for every route the tests of
// AddPlaced bind.
func placedService() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("POST /pets/{pet_id}/tags", echo("pet_id"))
	mux.Handle("PUT /pets/{pet_id}", echo("pet_id"))
	mux.Handle("GET /pets", echo())
	return mux
}

// A tool whose schema is built at run time (an OpenAPI operation's) has
// its arguments placed by a map, in the words of the in tag: a query
// parameter under another name than its argument's, a header on a POST,
// and one argument as the whole body, whatever its JSON type.
func TestAddPlacedPlacesTheArgumentsByMap(t *testing.T) {
	m := newMCPServer(t)
	b := route.New(m.srv, placedService(), nil)
	tags := schema.Object(
		schema.Required("pet_id", schema.Text("The pet.")),
		schema.Optional("page_size", schema.Integer("At most this many.")),
		schema.Optional("request_id", schema.Text("A request id.")),
		schema.Optional("body", schema.ListOf(schema.Text("A tag."), "The tags.")),
	)
	b.AddPlaced(ferry.Tool{Name: "tag_pet", Description: "Tags a pet.", InputSchema: tags}, "POST /pets/{pet_id}/tags",
		map[string]string{"page_size": "query=page[size]", "request_id": "header=X-Client-Request", "body": "body"})
	pet := schema.Object(
		schema.Required("pet_id", schema.Text("The pet.")),
		schema.Optional("name", schema.Text("Its name.")),
		schema.Optional("query_name", schema.Text("The name to look for.")),
	)
	b.AddPlaced(ferry.Tool{Name: "put_pet", Description: "Replaces a pet.", InputSchema: pet}, "PUT /pets/{pet_id}",
		map[string]string{"query_name": "query=name"})
	m.serve(t)

	type seenPart struct {
		RequestURI, Body, ContentType, ClientRequest string
	}
	tests := []struct {
		name, tool, args string
		want             seenPart
	}{
		{"the body argument is the body; the rest go to the query", "tag_pet",
			`{"pet_id":"7","page_size":5,"request_id":"r-1","body":["a","b"]}`,
			seenPart{RequestURI: "/pets/7/tags?page%5Bsize%5D=5", Body: `["a","b"]`, ContentType: "application/json", ClientRequest: "r-1"}},
		{"an absent body argument sends no body", "tag_pet", `{"pet_id":"7"}`,
			seenPart{RequestURI: "/pets/7/tags"}},
		{"a query parameter named like a body member", "put_pet", `{"pet_id":"7","name":"Rex","query_name":"Max"}`,
			seenPart{RequestURI: "/pets/7?name=Max", Body: `{"name":"Rex"}`, ContentType: "application/json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, e := range eras {
				r := m.call(t, e, tt.tool, tt.args)
				if r.IsError || r.RPCError != "" {
					t.Fatalf("%s: %+v", e, r)
				}
				var s seen
				if err := json.Unmarshal(r.Structured, &s); err != nil {
					t.Fatal(err)
				}
				got := seenPart{RequestURI: s.RequestURI, Body: s.Body, ContentType: strings.Join(s.Header["Content-Type"], ","),
					ClientRequest: strings.Join(s.Header["X-Client-Request"], ",")}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s: the route saw (-want +got):\n%s", e, diff)
				}
			}
		})
	}
}

// A problem's locations in the request name the arguments that filled
// them: a renamed query parameter its argument, and the body (and its
// members) the argument that is the whole body.
func TestAddPlacedProblemLocationsNameTheArguments(t *testing.T) {
	m := newMCPServer(t)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /pets/{pet_id}/tags", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = w.Write([]byte(`{"detail":"Bad tags.","errors":[` +
			`{"location":"query.page[size]","message":"is too big"},` +
			`{"location":"body[1]","message":"is not a tag"},` +
			`{"location":"body","message":"has too few tags"},` +
			`{"location":"query.other","message":"is unknown"}]}`))
	})
	b := route.New(m.srv, mux, nil)
	in := schema.Object(
		schema.Required("pet_id", schema.Text("The pet.")),
		schema.Optional("page_size", schema.Integer("At most this many.")),
		schema.Optional("tags", schema.ListOf(schema.Text("A tag."), "The tags.")),
	)
	b.AddPlaced(ferry.Tool{Name: "tag_pet", Description: "Tags a pet.", InputSchema: in}, "POST /pets/{pet_id}/tags",
		map[string]string{"page_size": "query=page[size]", "tags": "body"})
	m.serve(t)
	for _, e := range eras {
		r := m.call(t, e, "tag_pet", `{"pet_id":"1","page_size":500,"tags":["a","-"]}`)
		want := "invalid: Bad tags.\n- page_size: is too big\n- tags[1]: is not a tag\n- tags: has too few tags\n- query.other: is unknown"
		if !r.IsError || r.Text != want {
			t.Errorf("%s: got %+v, want the error %q", e, r, want)
		}
	}
}

// What cannot be placed is a start-up problem naming the tool: a name
// the schema lacks, a body on a GET, two bodies, and an empty query name.
func TestAddPlacedProblemsFailStartUp(t *testing.T) {
	m := newMCPServer(t)
	b := route.New(m.srv, placedService(), nil)
	in := schema.Object(
		schema.Optional("a", schema.Text("A.")),
		schema.Optional("b", schema.Text("B.")),
	)
	b.AddPlaced(ferry.Tool{Name: "unknown_name", Description: "Places a name it lacks.", InputSchema: in}, "GET /pets",
		map[string]string{"missing": "query"})
	b.AddPlaced(ferry.Tool{Name: "get_body", Description: "Sends a body with GET.", InputSchema: in}, "GET /pets",
		map[string]string{"a": "body"})
	b.AddPlaced(ferry.Tool{Name: "two_bodies", Description: "Sends two bodies.", InputSchema: in}, "PUT /pets/{pet_id}",
		map[string]string{"a": "body", "b": "body"})
	b.AddPlaced(ferry.Tool{Name: "empty_key", Description: "Names no parameter.", InputSchema: in}, "GET /pets",
		map[string]string{"a": "query="})
	err := m.srv.Check()
	if err == nil {
		t.Fatal("Check passed")
	}
	for _, want := range []string{
		`tool "unknown_name", route "GET /pets": argument "missing" is placed in:"query", but the input schema has no property "missing"`,
		`tool "get_body", route "GET /pets": field "a" is tagged in:"body", but a GET request has no body`,
		`tool "two_bodies", route "PUT /pets/{pet_id}": field "b" is tagged in:"body", but another field fills the body already`,
		`tool "empty_key", route "GET /pets": field "a": tag in:"query=": name the query parameter, or write in:"query"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check: %v\nwant it to hold %s", err, want)
		}
	}
}
