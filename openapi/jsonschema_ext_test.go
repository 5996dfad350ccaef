package openapi_test

import (
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/openapi"
)

// A schema the server cannot check is sent as the server writes every
// schema: bounds in plain digits (an int32 bound is 2147483647, not
// 2.147483647e+09), alternatives after enum, each written the same way.
func TestUncheckedSchemaIsWrittenAsCheckedOnesAre(t *testing.T) {
	const doc = `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
	"paths": {"/items": {"post": {"operationId": "addItem",
		"requestBody": {"required": true, "content": {"application/json": {"schema": {
			"type": "object", "required": ["count"],
			"properties": {
				"count": {"type": "integer", "minimum": 0, "maximum": 2147483647},
				"key": {"anyOf": [{"type": "string", "maxLength": 1000000}, {"type": "integer", "maximum": 1e6}]}
			}}}}},
		"responses": {"204": {"description": "added"}}}}}}`
	d, err := openapi.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := d.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	tl := tools[0]
	if tl.Checked || tl.Tool.InputSchema != nil {
		t.Fatalf("the input schema holds anyOf, and is checked (%v)", tl.Notes)
	}
	want := `{"type":"object","properties":{"count":{"type":"integer","minimum":0,"maximum":2147483647},` +
		`"key":{"anyOf":[{"type":"string","maxLength":1000000},{"type":"integer","maximum":1000000}]}},"required":["count"],"additionalProperties":false}`
	if got := string(tl.Tool.RawInputSchema); got != want {
		t.Errorf("input schema\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(strings.Join(tl.Notes, "\n"), "the input schema holds anyOf, oneOf or a list of types") {
		t.Errorf("notes: %q", tl.Notes)
	}
}
