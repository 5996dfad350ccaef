package openapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/openapi"
)

// docWith is a document whose one operation, GET /x, answers a JSON body
// of the given schema (YAML, indented for its place).
func docWith(version, schema string) string {
	return `openapi: ` + version + `
info: {title: t, version: "1"}
paths:
  /x:
    get:
      operationId: getX
      summary: Gets x.
      responses:
        "200":
          description: x
          content:
            application/json:
              schema:
` + schema
}

// A $ref may name a file beside the document or below it, never above,
// and a file that is not JSON or YAML is never read; a file that does
// not parse is named.
func TestLoadReadsOnlyFilesBesideTheDocument(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "api")
	for path, data := range map[string]string{
		filepath.Join(dir, "secret.yaml"):     "X: {type: object}\n",
		filepath.Join(sub, "ok.yaml"):         "X: {type: object, properties: {a: {type: string}}}\n",
		filepath.Join(sub, "broken.yaml"):     "X: {type: object\n  bad: : :\n",
		filepath.Join(sub, "notes.txt"):       "X: {type: object}\n",
		filepath.Join(sub, "up.yaml"):         docWith("3.1.0", `                $ref: "../secret.yaml#/X"`),
		filepath.Join(sub, "beside.yaml"):     docWith("3.1.0", `                $ref: "ok.yaml#/X"`),
		filepath.Join(sub, "usebroken.yaml"):  docWith("3.1.0", `                $ref: "broken.yaml#/X"`),
		filepath.Join(sub, "txt.yaml"):        docWith("3.1.0", `                $ref: "notes.txt#/X"`),
		filepath.Join(sub, "link.yaml"):       docWith("3.1.0", `                $ref: "linked.yaml#/X"`),
		filepath.Join(sub, "remote.yaml"):     docWith("3.1.0", `                $ref: "http://127.0.0.1:1/x.yaml#/X"`),
		filepath.Join(sub, "deeper/ok2.yaml"): "X: {type: string}\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "secret.yaml"), filepath.Join(sub, "linked.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := openapi.Load(t.Context(), filepath.Join(sub, "beside.yaml")); err != nil {
		t.Errorf("a $ref beside the document: %v", err)
	}
	for _, tt := range []struct{ doc, want string }{
		{"up.yaml", "up.yaml: a $ref may name only files in the document's directory or below it, not ../secret.yaml"},
		{"link.yaml", "link.yaml: a $ref may name only files in the document's directory or below it, not linked.yaml"},
		{"txt.yaml", "txt.yaml: a $ref may name only .json, .yaml and .yml files, not notes.txt"},
		{"remote.yaml", "remote.yaml: component `#/X` does not exist in the specification"},
		{"usebroken.yaml", "usebroken.yaml: broken.yaml: go-yaml load error"},
	} {
		_, err := openapi.Load(t.Context(), filepath.Join(sub, tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%s): %v, want an error holding %q", tt.doc, err, tt.want)
		}
	}
}

// A document read from a URL may name URLs under its own directory, and
// nothing else.
func TestLoadFromAURL(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the other host was asked for %s", r.URL)
	}))
	t.Cleanup(other.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /specs/api.yaml", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(docWith("3.0.3", `                $ref: "schemas.yaml#/X"`)))
	})
	mux.HandleFunc("GET /specs/schemas.yaml", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("X: {type: object, properties: {a: {type: string}}}\n"))
	})
	mux.HandleFunc("GET /specs/away.yaml", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(docWith("3.0.3", `                $ref: "`+other.URL+`/x.yaml#/X"`)))
	})
	mux.HandleFunc("GET /specs/up.yaml", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(docWith("3.0.3", `                $ref: "../private/x.yaml#/X"`)))
	})
	mux.HandleFunc("GET /private/x.yaml", func(w http.ResponseWriter, r *http.Request) {
		t.Error("a file above the document's directory was asked for")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	d, err := openapi.Load(t.Context(), srv.URL+"/specs/api.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tools, err := d.Tools(nil)
	if err != nil || len(tools) != 1 || tools[0].Err != nil {
		t.Fatalf("tools %v, %v", tools, err)
	}
	out, _ := json.Marshal(tools[0].Tool.OutputSchema)
	if string(out) != `{"type":"object","properties":{"a":{"type":"string"}}}` {
		t.Errorf("output schema %s", out)
	}
	for _, doc := range []string{"away.yaml", "up.yaml"} {
		if _, err := openapi.Load(t.Context(), srv.URL+"/specs/"+doc); err == nil {
			t.Errorf("Load(%s) passed", doc)
		}
	}
	if _, err := openapi.Load(t.Context(), srv.URL+"/specs/missing.yaml"); err == nil || !strings.Contains(err.Error(), "404 Not Found") {
		t.Errorf("a missing document: %v", err)
	}
}

// 3.0's words are written as 3.1 and JSON Schema 2020-12 write them;
// what only narrows is left out with a note; what allows nothing is a
// problem.
func TestSchemaConversion(t *testing.T) {
	tests := []struct {
		name, version, schema string
		want                  string // the output schema, or "problem: " and the problem
		note                  string
	}{
		{"nullable and a boolean exclusive bound", "3.0.3", `
                type: object
                properties:
                  n: {type: string, nullable: true}
                  m: {type: number, minimum: 0, exclusiveMinimum: true}`,
			`{"type":"object","properties":{"n":{"type":["string","null"]},"m":{"type":"number","exclusiveMinimum":0}}}`, ""},
		{"3.1 type lists, const and examples", "3.1.0", `
                type: object
                properties:
                  v: {type: [integer, string]}
                  k: {const: fixed, examples: [fixed]}`,
			`{"type":"object","properties":{"v":{"type":["integer","string"]},"k":{"enum":["fixed"],"examples":["fixed"]}}}`, ""},
		{"allOf merged: properties, required, stricter bounds", "3.1.0", `
                allOf:
                  - {type: object, required: [a], properties: {a: {type: integer, maximum: 10}}}
                  - {type: object, required: [b], properties: {a: {maximum: 5, minimum: 1}, b: {type: string}}}`,
			`{"type":"object","properties":{"a":{"type":"integer","minimum":1,"maximum":5},"b":{"type":"string"}},"required":["a","b"]}`, ""},
		{"not and patternProperties left out, with a note", "3.1.0", `
                type: object
                properties:
                  s: {type: string, not: {enum: [x]}}
                patternProperties:
                  "^x-": {type: string}`,
			`{"type":"object","properties":{"s":{"type":"string"}}}`,
			"output: patternProperties left out: the tool's schema does not check it; the service does"},
		{"writeOnly left out of an output", "3.1.0", `
                type: object
                required: [password, name]
                properties:
                  password: {type: string, writeOnly: true}
                  name: {type: string}`,
			`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`, ""},
		{"allOf of types with nothing in common", "3.1.0", `
                type: object
                properties:
                  x: {allOf: [{type: string}, {type: integer}]}`,
			"", "no output schema: output.x: the members of allOf have no type in common (string and integer): no value is valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := openapi.Parse([]byte(docWith(tt.version, strings.TrimPrefix(tt.schema, "\n"))))
			if err != nil {
				t.Fatal(err)
			}
			tools, err := d.Tools(nil)
			if err != nil {
				t.Fatal(err)
			}
			tl := tools[0]
			var got string
			switch {
			case tl.Tool.OutputSchema != nil:
				data, _ := json.Marshal(tl.Tool.OutputSchema)
				got = string(data)
			case tl.Tool.RawOutputSchema != nil:
				got = string(tl.Tool.RawOutputSchema)
			}
			if got != tt.want {
				t.Errorf("output schema\n got %s\nwant %s", got, tt.want)
			}
			if tt.note != "" && !strings.Contains(strings.Join(tl.Notes, "\n"), tt.note) {
				t.Errorf("notes %q\nwant one holding %q", tl.Notes, tt.note)
			}
		})
	}
}
