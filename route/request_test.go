package route

import (
	"net/url"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/schema"
)

// FuzzBuild checks that no arguments make building a request panic, and
// that a request built is one net/http reads back as built: the escaped
// URI parses to the same path and query.
func FuzzBuild(f *testing.F) {
	for _, s := range []string{`{"id":"a/b","path":"x/y z","q":[1,"two",true],"h":"v"}`, `{"id":".."}`, `{}`, `null`, `{"id":{"x":1}}`,
		`{"id":"\u00e9\"","path":"a//b"}`, `[`, `{"id":"1","q":[[1]]}`} {
		f.Add([]byte(s))
	}
	in := schema.Object(
		schema.Optional("id", schema.Text("id")),
		schema.Optional("path", schema.Text("path")),
		schema.Optional("q", &schema.Schema{Type: "array"}),
		schema.Optional("h", schema.Text("h")),
	)
	plans := map[string]*plan{}
	for _, text := range []string{"GET /orders/{id}/files/{path...}", "POST /orders/{id}"} {
		pl, problems := newPlan(&ferry.Tool{Name: "t", InputSchema: in}, text, "/api", map[string]string{"h": "header=X-H", "q": "query"})
		if len(problems) > 0 {
			f.Fatal(problems)
		}
		plans[text] = pl
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		for text, pl := range plans {
			var c call
			_, _, errs, err := pl.build(&c, args)
			if err != nil || len(errs) > 0 {
				continue
			}
			u, perr := url.ParseRequestURI(c.uri)
			if perr != nil {
				t.Fatalf("%s with %q: RequestURI %q does not parse: %v", text, args, c.uri, perr)
			}
			if u.Path != c.u.Path || u.RawQuery != c.u.RawQuery {
				t.Fatalf("%s with %q: %q reads back as path %q query %q, built %q %q", text, args, c.uri, u.Path, u.RawQuery, c.u.Path, c.u.RawQuery)
			}
		}
	})
}
