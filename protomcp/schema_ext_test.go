package protomcp_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compiled compiles a schema tools/list sent.
func compiled(t *testing.T, v any) *jsonschema.Schema {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sc, err := c.Compile("mem://schema.json")
	if err != nil {
		t.Fatalf("the schema %s does not compile: %v", data, err)
	}
	return sc
}

func instance(t *testing.T, raw string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSchemasAndCallsAgree checks the published schemas against what the
// tools do: arguments a call accepts fit the input schema, its response
// fits the output schema, and arguments the call refuses (where the schema
// has a keyword for the rule) do not fit the input schema.
func TestSchemasAndCallsAgree(t *testing.T) {
	m := newShopServer(t, nil)
	tools := m.listed(t)
	for _, c := range []struct {
		tool, args string
		ok         bool
	}{
		{"get_item", `{"sku":"BOOK-1"}`, true},
		{"get_item", `{"sku":"b"}`, false},
		{"get_item", `{"sku":"abc"}`, false},
		{"get_item", `{"sku":"BOOK-1","extra":1}`, false},
		{"place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":2}],"labels":{"cost_center":"c"},"invoiceRef":"i","deliverAfter":"2026-12-01T10:00:00Z","kind":"KIND_TOOL"}`, true},
		{"place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":0}]}`, false},
		{"place_order", `{"customerEmail":"a@example.com","lines":[]}`, false},
		{"place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":1}],"cardToken":"t","invoiceRef":"i"}`, false},
		{"place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":1}],"kind":"KIND_FOOD"}`, false},
		{"fail", `{"code":"not_found"}`, true},
	} {
		tool := tools[c.tool]
		in := compiled(t, tool["inputSchema"])
		fits := in.Validate(instance(t, c.args)) == nil
		if fits != c.ok {
			t.Errorf("%s %s: fits the input schema: %v, want %v", c.tool, c.args, fits, c.ok)
		}
		r := m.call(t, c.tool, c.args)
		if c.tool == "fail" {
			continue // it refuses by design
		}
		if r.IsError == c.ok {
			t.Errorf("%s %s: the call's IsError is %v: %s", c.tool, c.args, r.IsError, r.Text)
			continue
		}
		if c.ok {
			out := compiled(t, tool["outputSchema"])
			if err := out.Validate(instance(t, string(r.Structured))); err != nil {
				t.Errorf("%s: the response %s does not fit the output schema: %v", c.tool, r.Structured, err)
			}
		}
	}
}
