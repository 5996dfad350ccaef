package ferry

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry/schema"
	"github.com/ferry-mcp/ferry/toolname"
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
//
// A field of In of type *[Principal] (a field of the struct itself, not
// of one it embeds or holds; usually tagged `json:"-"`) is the caller: it
// is set to the request's principal, or nil for an anonymous caller,
// after the arguments are read and before h runs. It is no argument: it
// is left out of the input schema whatever its JSON tag, so a client that
// sends a member of its name gets the answer any unknown argument gets,
// and nothing a client sends can set it. An In that holds a Principal
// anywhere else (embedded, nested, by value) is refused, and
// [Server.Check] says where: the arguments would fill it.
func AddTool[In, Out any](s *Server, t Tool, h func(ctx context.Context, in In) (Out, error)) {
	if h == nil {
		panic("ferry: AddTool needs a handler") //nolint:forbidigo // a programmer error at registration, documented
	}
	t.Groups = handlerGroups(t.Groups, h)
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
		if spec.principals != nil {
			spec.setPrincipal(ctx, reflect.ValueOf(&in).Elem())
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
	out        outKind
	principals []int // the indexes of In's *Principal fields
}

var principalType = reflect.TypeFor[*Principal]()

// setPrincipal sets in's *Principal fields to the caller of ctx, or nil.
func (spec *typedSpec) setPrincipal(ctx context.Context, in reflect.Value) {
	p, _ := PrincipalFromContext(ctx)
	pv := reflect.ValueOf(p)
	for _, i := range spec.principals {
		in.Field(i).Set(pv)
	}
}

// principalFields finds the exported *Principal fields of in (a struct
// type) and removes their properties from the schema s derived from it.
func principalFields(in reflect.Type, s *schema.Schema) []int {
	if in.Kind() != reflect.Struct {
		return nil
	}
	var idx []int
	for i := range in.NumField() {
		f := in.Field(i)
		if f.Type != principalType || !f.IsExported() {
			continue
		}
		idx = append(idx, i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		delete(s.Properties, name)
		s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(n string) bool { return n == name })
		s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == name })
	}
	return idx
}

var (
	resultType = reflect.TypeFor[*ToolResult]()
	textMarsh  = reflect.TypeFor[encoding.TextMarshaler]()
)

// newTypedSpec derives the schemas of a typed tool into t. They are
// checked and compiled with every other tool's, by [Server.addTool], which
// refuses an In whose schema is not an object (see [builtSchema]).
func (s *Server) newTypedSpec(t *Tool, in, out reflect.Type) (*typedSpec, error) {
	if err := strayPrincipal(in); err != nil {
		return nil, fmt.Errorf("input type %v: %w", in, err)
	}
	inSchema, err := schema.ForType(in, nil)
	if err != nil {
		return nil, fmt.Errorf("input type %v: %w", in, err)
	}
	if t.InputSchema != nil || t.OutputSchema != nil {
		return nil, errors.New("its schemas come from its Go types: leave InputSchema and OutputSchema unset")
	}
	spec := &typedSpec{}
	if in.Kind() == reflect.Struct {
		c := *inSchema // the caller's fields are no arguments
		c.Properties = maps.Clone(inSchema.Properties)
		c.PropertyOrder = slices.Clone(inSchema.PropertyOrder)
		c.Required = slices.Clone(inSchema.Required)
		if spec.principals = principalFields(in, &c); spec.principals != nil {
			inSchema = &c
		}
	}
	t.InputSchema = inSchema
	switch {
	case out == resultType:
		spec.out = outResult
	case out.Kind() == reflect.String && !out.Implements(textMarsh):
		spec.out = outText
	default:
		outSchema, err := schema.ForType(out, &schema.Options{Output: true})
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
		return NewErrorResult("invalid arguments:\n- " + decodeSentence(err))
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
		res.markEncoded(data) // json.Marshal's: compact and valid
	}
	return res, nil
}

// strayPrincipal returns an error when In holds a [Principal] anywhere
// but in an exported *Principal field of its own: in a struct it embeds
// or holds, by value, or behind two pointers, in a slice or a map. The
// decoder would fill such a field from the arguments, so a client could
// name itself anyone; the server sets only In's own *Principal fields
// (see [AddTool]).
func strayPrincipal(in reflect.Type) error {
	seen := map[reflect.Type]bool{}
	path := ""
	if in.Kind() != reflect.Struct {
		path = principalPath(in, in.String(), seen)
	} else {
		seen[in] = true
		for i := range in.NumField() {
			f := in.Field(i)
			if f.Type == principalType && f.IsExported() || !f.IsExported() && !f.Anonymous {
				continue // the caller, or a field the decoder does not fill
			}
			if path = principalPath(f.Type, in.Name()+"."+f.Name, seen); path != "" {
				break
			}
		}
	}
	if path == "" {
		return nil
	}
	return fmt.Errorf("%s holds a ferry.Principal the arguments would fill: only a *ferry.Principal field of the In struct itself is the caller", path)
}

// principalPath returns path, extended to the field, when a value of type
// t holds a [Principal] the decoder would fill, and "" otherwise. seen
// holds the struct types already walked, so that recursive types end.
func principalPath(t reflect.Type, path string, seen map[reflect.Type]bool) string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t == principalType.Elem() {
		return path
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return ""
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		if p := principalPath(f.Type, path+"."+f.Name, seen); p != "" {
			return p
		}
	}
	return ""
}
