package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry"
)

// goodHints are the annotations of a tool that sets every hint.
const goodHints = `"annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`

// badServer lists, over two pages of tools, something for every lint
// rule.
func badServer(t *testing.T) string {
	t.Helper()
	long := strings.Repeat("Exports everything. ", 60) // 1200 characters
	s := &rawServer{pages: map[string][][]string{
		"tools/list": {{
			`{"name":"get order","description":"Gets an order.","inputSchema":{"type":"object"}}`,
			`{"name":"search","title":"Search","description":"Searches","annotations":{"readOnlyHint":true,"openWorldHint":false},` +
				`"inputSchema":{"type":"object","properties":{"q":{"$ref":"#/$defs/q"}},"$defs":{"q":{"type":"string"}}}}`,
			`{"name":"Search","title":"Search again","description":"Searches the catalog by a product's name.",` + goodHints +
				`,"inputSchema":{"type":"object"}}`,
			`{"name":"evil\nname","title":"Evil","description":"A name holding a line break.",` + goodHints + `,"inputSchema":{"type":"object"}}`,
		}, {
			`{"name":"search","title":"Search","description":"Searches the catalog by a product's name.",` + goodHints +
				`,"inputSchema":{"type":"object"}}`,
			`{"name":"export_everything","annotations":{"title":"Export","readOnlyHint":false,"openWorldHint":false},"description":"` + long +
				`","inputSchema":{"type":"array"}}`,
			`{"name":"` + strings.Repeat("x", 200) + `","title":"Long","description":"A name far over the protocol's limit.",` + goodHints + `,"inputSchema":{"type":"object"}}`,
			`{"name":"either","title":"Either","description":"Finds an order by its number or its reference.",` + goodHints +
				`,"inputSchema":{"type":"object","properties":{"id":{"type":"integer","description":"Number."},"ref":{"type":"string","description":"Reference."}},` +
				`"oneOf":[{"required":["id"]},{"required":["ref"]}]}}`,
			`{"name":"no_schema","title":"No schema","description":"Lists nothing, and declares no input schema.",` + goodHints + `}`,
			`{"name":"restock","title":"Restock","description":"Lists the products to restock, by shelf.",` + goodHints +
				`,"inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"low":{"type":["array","null"],"items":{"type":"string"}},` +
				`"shelves":{"type":"array","items":{"type":"object","properties":{"skus":{"type":["null","array"]},"note":{"type":["string","null"]}}}}}}}`,
			`{"name":"weird_schema","title":"Weird","description":"Has a schema that is not JSON Schema.",` + goodHints +
				`,"inputSchema":{"type":"object","properties":{"n":{"type":"int","description":"A count.","minLength":-1},` +
				`"tags":{"description":"Tags.","items":[{"type":"string"}]},"flag":true,"code":{"description":"A code.","pattern":"(ab"}},` +
				`"required":["n","missing"]},"outputSchema":{"type":"string"}}`,
		}},
		"prompts/list": {{
			`{"name":"summarize","description":"Summarizes an order for a customer email.",` +
				`"arguments":[{"name":"order_id","required":true},{"name":"style","description":"The tone."}]}`,
			`{"name":"","title":"Nameless","description":"x"}`,
			`{"name":"summarize","title":"Summarize","description":"Summarizes an order for a customer email.",` +
				`"arguments":[{"name":"a","description":"A."},{"name":"a","description":"A."},{"description":"No name."}]}`,
		}},
		"resources/list": {{
			`{"uri":"shop://catalog","name":"catalog","description":"The catalog."}`,
			`{"uri":"no-scheme","name":"x","mimeType":"text/plain"}`,
			`{"uri":"shop://catalog","name":"catalog2","description":"The catalog again.","mimeType":"application/json"}`,
		}},
		"resources/templates/list": {{
			`{"uriTemplate":"shop://orders/{id","name":"order","description":"An order.","mimeType":"application/json"}`,
			`{"uriTemplate":"shop://customers/{id}","description":"A customer."}`,
		}},
	}}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// badServerProblems are the lines lint prints for badServer.
var badServerProblems = []string{
	`tool "get order": name has ' '; use only A-Z, a-z, 0-9, '_', '-' and '.' [name-invalid]`,
	`tool "get order": description is 14 characters; say what it does and when to use it in at least 20 [description-short]`,
	`tool "get order": has no title (title or annotations.title) for clients to show [title-missing]`,
	`tool "get order": annotations leave readOnlyHint, destructiveHint, idempotentHint, openWorldHint unset; clients then assume the worst [hints-missing]`,
	`tool search: description is 8 characters; say what it does and when to use it in at least 20 [description-short]`,
	`tool search: input schema: $ref at q, which some clients reject: inline the schema [schema-unportable]`,
	`tool search: input properties q have no description [property-description-missing]`,
	`tool Search: differs from search only in case; some clients fold names together [name-case]`,
	`tool "evil\nname": name has '\n'; use only A-Z, a-z, 0-9, '_', '-' and '.' [name-invalid]`,
	`tool search: is listed more than once [name-duplicate]`,
	`tool export_everything: description is 1199 characters; some clients refuse more than 1024 [description-long]`,
	`tool export_everything: annotations leave destructiveHint, idempotentHint unset; clients then assume the worst [hints-missing]`,
	`tool export_everything: input schema's root is not "type": "object"; clients refuse the tool [schema-not-object]`,
	`tool "` + strings.Repeat("x", 80) + `"...: name is 200 characters; at most 128 are allowed [name-invalid]`,
	`tool either: input schema has oneOf at its root, which the Anthropic API refuses (every request that lists the tool fails): express the rule inside the properties, or with if/then/else [schema-root-combinator]`,
	`tool no_schema: has no inputSchema; the protocol requires one (at least {"type": "object"}) [input-schema-missing]`,
	`tool restock: output schema lets low, shelves[].skus be null as well as an array (what a Go nil slice writes): clients must handle both, ` +
		`and strict ones warn (the MCP Inspector's --strict); return an empty array and declare "type": "array" (in Go, tag the field omitzero) [output-nullable-array]`,
	`tool weird_schema: input schema: pattern "(ab" is not a regular expression: missing closing ) at properties.code.pattern [schema-invalid]`,
	`tool weird_schema: input schema: type "int" is not one of array, boolean, integer, null, number, object, string at properties.n.type [schema-invalid]`,
	`tool weird_schema: input schema: minLength is the number -1, not a non-negative integer at properties.n.minLength [schema-invalid]`,
	`tool weird_schema: input schema: items is a list (draft 4 to 2019-09); 2020-12 writes it as prefixItems at properties.tags.items [schema-invalid]`,
	`tool weird_schema: input schema: the schema true at flag, which some clients reject: write an object schema [schema-unportable]`,
	`tool weird_schema: input schema: the schema at tags[] is not an object [schema-unportable]`,
	`tool weird_schema: input properties flag have no description [property-description-missing]`,
	`tool weird_schema: input schema requires missing but declares no such property [required-undeclared]`,
	`tool weird_schema: output schema's root is not "type": "object"; clients refuse the tool [schema-not-object]`,
	`prompt summarize: has no title for clients to show [title-missing]`,
	`prompt summarize: arguments order_id have no description [argument-description-missing]`,
	`prompt "": has no name [name-missing]`,
	`prompt "": description is 1 characters; say what it does and when to use it in at least 20 [description-short]`,
	`prompt summarize: is listed more than once [name-duplicate]`,
	`prompt summarize: argument a is listed more than once [argument-invalid]`,
	`prompt summarize: argument 3 has no name [argument-invalid]`,
	`resource shop://catalog: has no mimeType; clients cannot tell how to show its contents [mimetype-missing]`,
	`resource no-scheme: uri is not an absolute URI (scheme:rest) [uri-invalid]`,
	`resource no-scheme: has no description: say what it holds and when to read it [description-missing]`,
	`resource shop://catalog: is listed more than once [name-duplicate]`,
	`template shop://orders/{id: uriTemplate's braces do not pair into non-empty expressions [uri-invalid]`,
	`template shop://customers/{id}: has no name; the protocol requires one [name-missing]`,
	`template shop://customers/{id}: has no mimeType; clients cannot tell how to show its contents [mimetype-missing]`,
}

// lint finds every problem of the bad server, one exact line each, in
// the server's order, and exits 1.
func TestLintBadServer(t *testing.T) {
	code, stdout, stderr := runFerry(t, []string{"lint", "-quiet", badServer(t)})
	if code != exitFailed {
		t.Errorf("exit %d, want %d; stderr %q", code, exitFailed, stderr)
	}
	if diff := cmp.Diff(badServerProblems, lines(stdout)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	want := "ferry: lint: 40 problems in 11 tools, 3 prompts, 3 resources, 2 resource templates of "
	if !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr %q, want one line starting %q", stderr, want)
	}
}

// -ignore leaves the named rules out; an unknown rule is a usage error.
func TestLintIgnore(t *testing.T) {
	url := badServer(t)
	code, stdout, _ := runFerry(t, []string{"lint", "-ignore", "name-invalid,description-short", "-ignore=hints-missing", url})
	if code != exitFailed {
		t.Errorf("exit %d, want %d", code, exitFailed)
	}
	for _, l := range lines(stdout) {
		if strings.HasSuffix(l, "[name-invalid]") || strings.HasSuffix(l, "[description-short]") || strings.HasSuffix(l, "[hints-missing]") {
			t.Errorf("ignored rule reported: %s", l)
		}
	}
	if got := len(lines(stdout)); got != len(badServerProblems)-8 {
		t.Errorf("%d problems, want %d", got, len(badServerProblems)-8)
	}
	code, stdout, stderr := runFerry(t, []string{"lint", "-ignore", "no-such-rule", url})
	if code != exitUsage || stdout != "" || !strings.HasPrefix(stderr, `ferry: lint: -ignore: no rule "no-such-rule"`) {
		t.Errorf("unknown rule: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// A well-declared Ferry server has no problems, in either era and over
// stdio: nothing on stdout, one line on stderr, exit 0.
func TestLintCleanServer(t *testing.T) {
	url := httpServer(t, shopServer(nil), nil)
	for _, args := range [][]string{
		{"lint", url},
		{"lint", "-protocol", "2025-11-25", url},
		append([]string{"lint"}, stdioCommand(t)...),
	} {
		code, stdout, stderr := runFerry(t, args)
		if code != exitOK || stdout != "" || !strings.HasPrefix(stderr, "ferry: lint: no problems in 2 tools, 1 prompts, 1 resources, 1 resource templates of ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// A Ferry server with a tool lint finds wanting (no title, a one-word
// description, a property without a description) is reported: Ferry's
// start-up checks let these pass, lint does not.
func TestLintFerryServerQuality(t *testing.T) {
	srv := ferry.NewServer("thin", "0.1", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "lookup", Description: "Looks", ReadOnly: true},
		func(_ context.Context, in struct {
			Key string `json:"key"`
		}) (string, error) {
			return in.Key, nil
		})
	code, stdout, _ := runFerry(t, []string{"lint", httpServer(t, srv, nil)})
	want := []string{
		"tool lookup: description is 5 characters; say what it does and when to use it in at least 20 [description-short]",
		"tool lookup: has no title (title or annotations.title) for clients to show [title-missing]",
		"tool lookup: input properties key have no description [property-description-missing]",
	}
	if code != exitFailed {
		t.Errorf("exit %d, want %d", code, exitFailed)
	}
	if diff := cmp.Diff(want, lines(stdout)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// lines splits output into its lines, without the last newline.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// A server whose listing is not the protocol's: exit 3, one line, no
// problem lines.
func TestLintGarbageListing(t *testing.T) {
	for _, page := range []string{`"nope"`, `{"name":7}`} {
		ts := httptest.NewServer(&rawServer{pages: map[string][][]string{"tools/list": {{page}}}})
		code, stdout, stderr := runFerry(t, []string{"lint", ts.URL})
		ts.Close()
		if code != exitProtocol || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "ferry: listing tools: ") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", page, code, stdout, stderr)
		}
	}
}
