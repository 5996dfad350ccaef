package ferry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ferry-mcp/ferry/schema"
)

// This file is the one schema pipeline every kind of tool goes through:
// typed tools ([AddTool], [AddMethods]) and hand-written or run-time-built
// ones ([Server.AddTool] with a [schema.Schema], as package entity, route
// and protomcp build them). Registration checks a tool's schemas once and
// compiles its input schema; every call is then checked against it before
// the handler runs, under [ServerOptions.Coercion], and a call that does
// not fit gets the same IsError result, in the same sentences, whatever
// kind of tool it is.

// toolSchemas is what registration makes of a tool's schemas.
type toolSchemas struct {
	input, output json.RawMessage   // as tools/list sends them
	validator     *schema.Validator // nil when the arguments are not checked
}

// compileSchemas checks t's schemas, marshals them and compiles the input
// schema's validator. It returns every problem found, each naming the tool.
func (s *Server) compileSchemas(t *Tool) (toolSchemas, []error) {
	var ts toolSchemas
	var errs []error
	add := func(what string, err error) {
		errs = append(errs, fmt.Errorf("tool %q: %s: %s", t.Name, what, strings.TrimPrefix(err.Error(), "schema: ")))
	}
	var err error
	switch {
	case t.InputSchema != nil && t.RawInputSchema != nil:
		add("input schema", errors.New("set InputSchema or RawInputSchema, not both"))
	case t.RawInputSchema != nil:
		ts.input, err = rawSchema(t.RawInputSchema)
	case t.InputSchema != nil:
		ts.input, err = builtSchema(t.InputSchema)
		if err == nil {
			ts.validator, err = schema.Compile(t.InputSchema, s.opts.Coercion)
		}
	default:
		ts.input = emptyObjectSchema
	}
	for _, e := range split(err) {
		add("input schema", e)
	}
	err = nil
	switch {
	case t.OutputSchema != nil && t.RawOutputSchema != nil:
		add("output schema", errors.New("set OutputSchema or RawOutputSchema, not both"))
	case t.RawOutputSchema != nil:
		ts.output, err = rawSchema(t.RawOutputSchema)
	case t.OutputSchema != nil:
		ts.output, err = builtSchema(t.OutputSchema)
	}
	for _, e := range split(err) {
		add("output schema", e)
	}
	if ts.input == nil { // a problem above: keep the listing well-formed
		ts.input = emptyObjectSchema
	}
	return ts, errs
}

// builtSchema marshals a tool's object schema and checks that clients
// accept it. It is the one place that refuses a root that is not an
// object, for typed tools (whose In is then not a struct or a map) as for
// the others.
func builtSchema(sc *schema.Schema) (json.RawMessage, error) {
	if sc.Type != "object" || sc.Nullable {
		return nil, errors.New(`the root must be an object schema (Type "object", not Nullable); a typed tool's input type must be a struct or a map, not a pointer`)
	}
	data, err := json.Marshal(sc)
	if err != nil {
		return nil, err
	}
	return data, schema.PortableJSON(data)
}

// rawSchema checks that a raw schema is a JSON object schema, the one rule
// the protocol sets; it is sent as it is, without the portability check.
func rawSchema(raw json.RawMessage) (json.RawMessage, error) {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if string(root["type"]) != `"object"` {
		return nil, errors.New(`the root must be an object schema ("type": "object")`)
	}
	// Sent compact: a newline in it would split a stdio message in two.
	return appendCompact(nil, raw)
}

// split returns the errors joined in err, one by one.
func split(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// validating checks every call's arguments against v before h runs, and
// hands h the arguments coerced and with defaults filled in.
func validating(v *schema.Validator, h ToolHandler) ToolHandler {
	return func(ctx context.Context, req *CallToolRequest) (*ToolResult, error) {
		args, errs := v.Validate(req.Arguments)
		if len(errs) > 0 {
			setOutcome(ctx, outcomeInvalid, "")
			return NewInvalidArgumentsResult(errs), nil
		}
		req.Arguments = args
		return h(ctx, req)
	}
}
