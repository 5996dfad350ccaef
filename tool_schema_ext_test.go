package ferry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/schema"
	"github.com/google/go-cmp/cmp"
)

// lineIn is the input of a typed tool; lineSchema is the same input built
// by hand, as a package that knows its fields only at run time would.
type lineIn struct {
	SKU   string   `json:"sku" doc:"The item." minLength:"1" maxLength:"8"`
	Qty   int      `json:"qty" minimum:"1" maximum:"10"`
	Tags  []string `json:"tags,omitempty" uniqueItems:"true"`
	Limit int      `json:"limit,omitzero" default:"5"`
}

func lineSchema() *schema.Schema {
	sku := schema.Text("The item.")
	sku.MinLength, sku.MaxLength = new(1), new(8)
	qty := &schema.Schema{Type: "integer", Minimum: new(1.0), Maximum: new(10.0)}
	tags := schema.ListOf(&schema.Schema{Type: "string"}, "")
	tags.UniqueItems = true
	limit := &schema.Schema{Type: "integer", Default: json.RawMessage("5")}
	return schema.Object(
		schema.Required("sku", sku),
		schema.Required("qty", qty),
		schema.Optional("tags", tags),
		schema.Optional("limit", limit),
	)
}

// twinServer serves the typed tool "typed" and the hand-built tool "built"
// with the same input, each echoing the arguments its handler received.
func twinServer(t *testing.T) *ferry.Server {
	t.Helper()
	srv := ferry.NewServer("twins", "1", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "typed", Description: "Typed."},
		func(_ context.Context, in lineIn) (string, error) {
			data, err := json.Marshal(in)
			return string(data), err
		})
	srv.AddTool(ferry.Tool{Name: "built", Description: "Built at run time.", InputSchema: lineSchema()},
		func(_ context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			var in lineIn
			if err := json.Unmarshal(req.Arguments, &in); err != nil {
				return nil, err
			}
			data, err := json.Marshal(in)
			return ferry.NewResult(ferry.Text(string(data))), err
		})
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	return srv
}

// A tool whose schema is built at run time, with no Go type behind it, is
// checked exactly as a typed tool is: the same coercion, the same
// defaults, the same sentences, every violation listed.
func TestRuntimeBuiltToolIsValidatedLikeATypedOne(t *testing.T) {
	srv := twinServer(t)
	tests := []struct {
		name, args string
		want       string // the text both tools answer
		isError    bool
	}{
		{"every violation", `{"sku":"","qty":11,"tags":["a","a"],"colour":"red"}`,
			"invalid arguments:\n- sku: must be at least 1 character, got 0\n- qty: must be at most 10, got 11\n" +
				"- tags: must not repeat items (item 1 repeats item 0)\n" +
				`- colour: is not allowed: unknown property "colour"; known properties: sku, qty, tags, limit`, true},
		{"missing", `{}`, "invalid arguments:\n- sku: is required\n- qty: is required", true},
		{"coerced and defaulted", `{"sku":"AB","qty":"3","tags":"[\"x\",\"y\"]"}`, `{"sku":"AB","qty":3,"tags":["x","y"],"limit":5}`, false},
		{"null is absent", `{"sku":"AB","qty":3,"limit":null}`, `{"sku":"AB","qty":3,"limit":5}`, false},
		{"case-folded key", `{"sku":"AB","qty":3,"SKU":""}`,
			"invalid arguments:\n- SKU: is not allowed: \"SKU\" differs only in case from the property \"sku\"; send it as \"sku\"", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typed, built := call(t, srv, "typed", tt.args), call(t, srv, "built", tt.args)
			if diff := cmp.Diff(text(typed), text(built)); diff != "" {
				t.Errorf("the two tools answer differently (-typed +built):\n%s", diff)
			}
			if got := text(built); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if (typed["isError"] == true) != tt.isError || (built["isError"] == true) != tt.isError {
				t.Errorf("isError = %v and %v, want %v", typed["isError"], built["isError"], tt.isError)
			}
		})
	}
}

// Both tools publish the same schema, and a tool's schema is checked once:
// a problem is reported once, not twice.
func TestRuntimeBuiltToolListsLikeATypedOne(t *testing.T) {
	srv := twinServer(t)
	var typed, built []byte
	res := list(t, srv)
	for _, tool := range res {
		data, _ := json.Marshal(tool["inputSchema"])
		switch tool["name"] {
		case "typed":
			typed = data
		case "built":
			built = data
		}
	}
	if diff := cmp.Diff(string(typed), string(built)); diff != "" {
		t.Errorf("input schemas differ (-typed +built):\n%s", diff)
	}
}

func TestASchemaProblemIsReportedOnce(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "typed", Description: "x"}, func(context.Context, struct {
		A string `json:"a" doc:"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"`
	}) (string, error) {
		return "", nil
	})
	long := strings.Repeat("x", schema.MaxDescription+1)
	in := schema.Object(schema.Required("a", schema.Text(long)))
	srv.AddTool(ferry.Tool{Name: "built", Description: "x", InputSchema: in}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return nil, nil
	})
	err := srv.Check()
	if n := strings.Count(err.Error(), "description at a has 1025 characters"); n != 2 {
		t.Errorf("the problem is reported %d times for two tools:\n%v", n, err)
	}
	if n := strings.Count(err.Error(), `tool "typed": input schema: description at a`); n != 1 {
		t.Errorf("the problem is reported %d times:\n%v", n, err)
	}
}

func TestSettingBothSchemasIsAProblem(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	srv.AddTool(ferry.Tool{Name: "both", Description: "x", InputSchema: schema.Object(),
		RawInputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return nil, nil
	})
	if err := srv.Check(); err == nil || !strings.Contains(err.Error(), `tool "both": input schema: set InputSchema or RawInputSchema, not both`) {
		t.Errorf("Check() = %v", err)
	}
}

// A raw schema is the escape hatch: sent as it is, and the handler gets the
// arguments as the client sent them.
func TestRawSchemaIsSentVerbatimAndNotEnforced(t *testing.T) {
	raw := `{"type":"object","$defs":{"n":{"type":"integer"}},"properties":{"n":{"$ref":"#/$defs/n"}}}`
	srv := ferry.NewServer("s", "1", nil)
	srv.AddTool(ferry.Tool{Name: "raw", Description: "x", RawInputSchema: json.RawMessage(raw)},
		func(_ context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text(string(req.Arguments))), nil
		})
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	if got := text(call(t, srv, "raw", `{"n":"x"}`)); got != `{"n":"x"}` {
		t.Errorf("the handler got %s", got)
	}
	tools := list(t, srv)
	data, _ := json.Marshal(tools[0]["inputSchema"])
	var want, got any
	_ = json.Unmarshal([]byte(raw), &want)
	_ = json.Unmarshal(data, &got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestValidToolName(t *testing.T) {
	if err := ferry.ValidToolName("search_orders"); err != nil {
		t.Error(err)
	}
	err := ferry.ValidToolName("order items")
	if err == nil || err.Error() != `ferry: tool "order items": name has ' '; use only A-Z, a-z, 0-9, '_', '-' and '.'` {
		t.Errorf("got %v", err)
	}
}

func TestNewInvalidArgumentsResultListsEveryViolation(t *testing.T) {
	res := ferry.NewInvalidArgumentsResult(schema.Errors{{Path: "items[3].name", Message: "must be at most 20 characters, got 23"}, {Message: "expected an object, got 1"}})
	want := "invalid arguments:\n- items[3].name: must be at most 20 characters, got 23\n- expected an object, got 1"
	if !res.IsError || len(res.Content) != 1 {
		t.Fatalf("got %+v", res)
	}
	if got := res.Content[0].(*ferry.TextContent).Text; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if ferry.NewInvalidArgumentsResult(nil) != nil {
		t.Error("no violations gave a result")
	}
}

// list returns the tools of a modern tools/list.
func list(t *testing.T, srv *ferry.Server) []map[string]any {
	t.Helper()
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	var out bytes.Buffer
	if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(line), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Result struct{ Tools []map[string]any }
	}
	if err := json.Unmarshal(out.Bytes(), &msg); err != nil {
		t.Fatalf("answer %q: %v", out.String(), err)
	}
	return msg.Result.Tools
}

func TestATypedToolGivenASchemaIsAProblem(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "typed", Description: "x", InputSchema: schema.Object()},
		func(context.Context, struct{}) (string, error) { return "", nil })
	if err := srv.Check(); err == nil || !strings.Contains(err.Error(), `tool "typed": its schemas come from its Go types`) {
		t.Errorf("Check() = %v", err)
	}
}

// A tool whose input schema does not compile is not served unchecked: it
// is not registered, and the problem names it.
func TestAToolWhoseSchemaDoesNotCompileIsNotServed(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	in := schema.Object(schema.Optional("n", &schema.Schema{Type: "integer", Maximum: new(5.0), Default: json.RawMessage("9")}))
	srv.AddTool(ferry.Tool{Name: "bad", Description: "x", InputSchema: in},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
	err := srv.Check()
	if err == nil || !strings.Contains(err.Error(), `tool "bad": input schema: n: default 9 does not fit the schema: must be at most 5, got 9`) {
		t.Errorf("Check() = %v", err)
	}
	if _, ok := srv.Catalog().Lookup("bad"); ok {
		t.Error("the tool was registered")
	}
}

// A Schema holding anyOf is not taken for checked: as an input schema it
// is a problem naming the tool, and marshalled into RawInputSchema it is
// sent as it is, the arguments unchecked.
func TestASchemaWithAlternativesIsSentOnlyRaw(t *testing.T) {
	in := schema.Object(schema.Required("id", &schema.Schema{AnyOf: []*schema.Schema{schema.Text(""), schema.Integer("")}}))
	echo := func(_ context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text(string(req.Arguments))), nil
	}
	srv := ferry.NewServer("s", "1", nil)
	srv.AddTool(ferry.Tool{Name: "checked", Description: "x", InputSchema: in}, echo)
	err := srv.Check()
	if err == nil || !strings.Contains(err.Error(), `tool "checked": input schema: id: the validator does not check anyOf`) {
		t.Errorf("Check() = %v", err)
	}
	if _, ok := srv.Catalog().Lookup("checked"); ok {
		t.Error("the tool was registered")
	}

	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	srv = ferry.NewServer("s", "1", nil)
	srv.AddTool(ferry.Tool{Name: "raw", Description: "x", RawInputSchema: raw}, echo)
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	if got := text(call(t, srv, "raw", `{"id":true}`)); got != `{"id":true}` {
		t.Errorf("the handler got %s", got)
	}
	data, _ := json.Marshal(list(t, srv)[0]["inputSchema"])
	want := `{"additionalProperties":false,"properties":{"id":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"required":["id"],"type":"object"}`
	if string(data) != want {
		t.Errorf("inputSchema = %s, want %s", data, want)
	}
}
