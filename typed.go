package ferry

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry/internal/toolname"
	"github.com/ferry-mcp/ferry/schema"
)

// AddTool registers a typed tool. The input schema comes from In (a struct),
// the output schema from Out, both once, here. Every call's arguments are
// checked against the input schema before h runs: a call that does not fit
// gets an IsError result listing every violation with its path, and h does
// not run. What h returns becomes the result:
//
//   - a struct, a map or a pointer to one: structuredContent, plus the same
//     JSON as a text block, and Out's schema is the output schema;
//   - a string: one text block;
//   - a [*ToolResult]: sent as it is;
//   - anything else (a slice, a number): its JSON as a text block.
//
// Errors follow [ToolHandler]. Call details (the session, the caller, the
// request's headers) come from ctx: see [CallInfoFromContext],
// [PrincipalFromContext] and [NotifyProgress]. Problems with the types or
// their tags are reported by [Server.Check], naming the tool.
func AddTool[In, Out any](s *Server, t Tool, h func(ctx context.Context, in In) (Out, error)) {
	if h == nil {
		panic("ferry: AddTool needs a handler") //nolint:forbidigo // a programmer error at registration, documented
	}
	spec, err := s.newTypedSpec(&t, reflect.TypeFor[In](), reflect.TypeFor[Out]())
	if err != nil {
		s.refuseTyped(&t, nil, err)
		return
	}
	s.addTool(t, func(ctx context.Context, req *CallToolRequest) (*ToolResult, error) {
		var in In
		if res := decodeArguments(ctx, req.Arguments, &in); res != nil {
			return res, nil
		}
		out, err := h(ctx, in)
		if err != nil {
			return nil, err
		}
		return spec.result(out)
	})
}

// outKind is how a typed tool's output becomes a result.
type outKind uint8

const (
	outStructured outKind = iota // structuredContent + JSON text
	outText                      // a string
	outResult                    // a *ToolResult
	outJSONText                  // JSON text only
)

// typedSpec is what registration learns of a typed tool's output type.
type typedSpec struct {
	out outKind
}

var (
	resultType = reflect.TypeFor[*ToolResult]()
	textMarsh  = reflect.TypeFor[encoding.TextMarshaler]()
)

// newTypedSpec derives the schemas of a typed tool into t. They are
// checked and compiled with every other tool's, by [Server.addTool], which
// refuses an In whose schema is not an object (see [builtSchema]).
func (s *Server) newTypedSpec(t *Tool, in, out reflect.Type) (*typedSpec, error) {
	inSchema, err := schema.ForType(in, nil)
	if err != nil {
		return nil, fmt.Errorf("input type %v: %w", in, err)
	}
	if t.InputSchema != nil || t.OutputSchema != nil {
		return nil, errors.New("its schemas come from its Go types: leave InputSchema and OutputSchema unset")
	}
	t.InputSchema = inSchema
	spec := &typedSpec{}
	switch {
	case out == resultType:
		spec.out = outResult
	case out.Kind() == reflect.String && !out.Implements(textMarsh):
		spec.out = outText
	default:
		outSchema, err := schema.ForType(out, nil)
		if err != nil {
			return nil, fmt.Errorf("output type %v: %w", out, err)
		}
		if outSchema.Type != "object" {
			spec.out = outJSONText
			break
		}
		c := *outSchema // a struct or map, or a pointer to one: not null
		c.Nullable = false
		t.OutputSchema = &c
	}
	return spec, nil
}

// refuseTyped records the problems of a typed tool that is not added, so
// that [Server.Check] reports them all at once rather than one after
// another: those of its name and description ([checkTool]; undescribed,
// when not nil, says instead why it has no description), then err, from
// deriving its schemas, when not nil.
func (s *Server) refuseTyped(t *Tool, undescribed, err error) {
	var problems []error
	if undescribed != nil {
		if e := toolname.Check(t.Name); e != nil {
			problems = append(problems, fmt.Errorf("tool %q: %w", t.Name, e))
		}
		problems = append(problems, undescribed)
	} else {
		problems = checkTool(t)
	}
	if err != nil {
		problems = append(problems, fmt.Errorf("tool %q: %w", t.Name, err))
	}
	s.admit("tool", t.Name, problems, nil, nil)
}

// decodeArguments decodes arguments, already checked against the tool's
// input schema, into in (a pointer). It returns the IsError result to send
// when they do not fit the Go type after all (a number too large for its
// field), or nil.
func decodeArguments(ctx context.Context, args json.RawMessage, in any) *ToolResult {
	if len(args) == 0 || string(args) == "null" {
		return nil
	}
	if err := json.Unmarshal(args, in); err != nil {
		setOutcome(ctx, outcomeInvalid, "")
		return ErrorResult("invalid arguments:\n- " + decodeSentence(err))
	}
	return nil
}

// decodeSentence says why valid arguments did not fit the Go input type
// without naming Go types: a number out of its field's range is quoted as
// sent, with the range ("n: 99999999999999999999 is out of range: it must
// be a whole number from -128 to 127").
func decodeSentence(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return "the arguments could not be read"
	}
	if lit, ok := strings.CutPrefix(te.Value, "number "); ok && te.Type != nil {
		if r := numberRange(te.Type); r != "" {
			return te.Field + ": " + lit + " is out of range: it must be " + r
		}
	}
	return te.Field + ": " + te.Value + " does not fit this field"
}

// numberRange says which numbers a Go numeric type holds, or "" for
// another type.
func numberRange(t reflect.Type) string {
	switch k := t.Kind(); {
	case reflect.Int <= k && k <= reflect.Int64:
		bits := t.Bits()
		return "a whole number from " + strconv.FormatInt(int64(-1)<<(bits-1), 10) + " to " + strconv.FormatInt(int64(1)<<(bits-1)-1, 10)
	case reflect.Uint <= k && k <= reflect.Uintptr:
		return "a whole number from 0 to " + strconv.FormatUint(uint64(1)<<t.Bits()-1, 10)
	case k == reflect.Float32:
		return "a number from -" + strconv.FormatFloat(math.MaxFloat32, 'g', -1, 32) + " to " + strconv.FormatFloat(math.MaxFloat32, 'g', -1, 32)
	}
	return ""
}

// result turns a typed tool's output into a result.
func (spec *typedSpec) result(v any) (*ToolResult, error) {
	switch spec.out {
	case outResult:
		r, _ := v.(*ToolResult)
		return r, nil
	case outText:
		return &ToolResult{Content: []Content{Text(reflect.ValueOf(v).String())}}, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the tool's output: %w", err)
	}
	res := &ToolResult{Content: []Content{Text(string(data))}}
	if spec.out == outStructured && string(data) != "null" {
		res.StructuredContent = json.RawMessage(data)
	}
	return res, nil
}
