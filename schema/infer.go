package schema

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/ferry-mcp/ferry/internal/fields"
)

// Options configures [For] and [ForType]. A nil *Options is the zero value.
type Options struct {
	// AllowRecursion permits types that contain themselves, such as a tree
	// node with a slice of child nodes. The recursive occurrence is emitted
	// unchecked: {"type":"object"} for a struct or map ({} for other kinds),
	// plus the field's doc text, so a validator does not look inside it. If
	// false (the zero value), a recursive type is an error naming the type
	// and the path where it recurs.
	AllowRecursion bool
	// Output derives the schema of values Go encodes, such as a tool's
	// result, rather than of values Go decodes: a slice or a map may be
	// nil, which encoding/json writes as null, so their schemas admit null
	// too, unless the field is tagged omitempty or omitzero (left out,
	// never null): such a field is an array or an object alone, which is
	// what portable clients expect of a list. If false, a slice is an
	// array and a map an object, as arguments must be.
	Output bool
}

// SchemaProvider is implemented by types that describe themselves. [For]
// calls JSONSchema on the zero value of the type (a pointer to a new zero
// value for a pointer receiver) and uses the result as it is, before any
// other rule; the field's tags still apply on top. JSONSchema must not
// return nil, and the schema it returns must not change afterwards.
type SchemaProvider interface {
	JSONSchema() *Schema
}

var (
	providerType        = reflect.TypeFor[SchemaProvider]()
	timeType            = reflect.TypeFor[time.Time]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	numberType          = reflect.TypeFor[json.Number]()
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// For returns the JSON Schema of values of type T, as encoding/json writes
// and reads them; see the package documentation for the rules and tags. It
// returns an error for a tag it cannot apply, a type JSON cannot hold
// (channels, functions, complex numbers) and, unless
// [Options.AllowRecursion], a recursive type.
//
// Subschemas of a type that occurs more than once may be shared within the
// result: treat it as read-only.
func For[T any](opts *Options) (*Schema, error) {
	return ForType(reflect.TypeFor[T](), opts)
}

// ForType is [For] for a [reflect.Type].
func ForType(t reflect.Type, opts *Options) (*Schema, error) {
	if t == nil {
		return nil, errors.New("schema: nil type")
	}
	in := &inferrer{done: map[reflect.Type]*Schema{}, active: map[reflect.Type]bool{}}
	if opts != nil {
		in.opts = *opts
	}
	s, err := in.schema(t, "", "struct")
	if err != nil {
		return nil, errors.Join(append(in.tagErrs, err)...)
	}
	if len(in.tagErrs) > 0 {
		return nil, errors.Join(in.tagErrs...)
	}
	return s, nil
}

// inferrer builds the schemas of one [ForType] call.
type inferrer struct {
	opts   Options
	done   map[reflect.Type]*Schema // finished schemas, shared by occurrences
	active map[reflect.Type]bool    // types being built: seeing one again is recursion
	// tagErrs collects every tag that cannot apply, so that one ForType
	// reports them all.
	tagErrs []error
}

// schema returns the schema of t, found at path (a JSON path such as
// items[].name, empty at the root). owner names t in tag errors when t has
// no name of its own.
func (in *inferrer) schema(t reflect.Type, path, owner string) (*Schema, error) {
	nullable := false
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
		nullable = true
	}
	if t.Name() != "" {
		owner = t.String()
	}
	s, err := in.cached(t, path, owner)
	if err != nil || !nullable || s.Type == "" {
		return s, err
	}
	c := *s
	c.Nullable = true
	return &c, nil
}

// nilable marks the schema of a slice or map nullable when it describes
// output (see [Options.Output]), which may hold a nil one.
func (in *inferrer) nilable(s *Schema, err error) (*Schema, error) {
	if err == nil && in.opts.Output {
		s.Nullable = true
	}
	return s, err
}

func (in *inferrer) cached(t reflect.Type, path, owner string) (*Schema, error) {
	if s, ok := in.done[t]; ok {
		return s, nil
	}
	if in.active[t] {
		if !in.opts.AllowRecursion {
			return nil, fmt.Errorf("schema: recursive type %s%s", t, atPath(path))
		}
		if k := t.Kind(); k == reflect.Struct || k == reflect.Map {
			return &Schema{Type: "object"}, nil
		}
		return &Schema{}, nil
	}
	in.active[t] = true
	s, err := in.build(t, path, owner)
	delete(in.active, t)
	if err != nil {
		return nil, err
	}
	in.done[t] = s
	return s, nil
}

// build makes the schema of t, which is not a pointer.
func (in *inferrer) build(t reflect.Type, path, owner string) (*Schema, error) {
	switch {
	case t.Kind() == reflect.Interface:
		return &Schema{}, nil
	case implements(t, providerType):
		return provided(t)
	case t == timeType:
		return &Schema{Type: "string", Format: "date-time"}, nil
	case t == rawMessageType:
		return &Schema{}, nil
	case t == numberType:
		return &Schema{Type: "number"}, nil
	case implements(t, jsonMarshalerType) || implements(t, jsonUnmarshalerType):
		// Its own code decides the JSON; only a SchemaProvider can say more.
		return &Schema{}, nil
	case implements(t, textMarshalerType) || implements(t, textUnmarshalerType):
		return &Schema{Type: "string"}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &Schema{Type: "integer"}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		zero := 0.0
		return &Schema{Type: "integer", Minimum: &zero}, nil
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: "number"}, nil
	case reflect.String:
		return &Schema{Type: "string"}, nil
	case reflect.Slice:
		if isBytes(t) {
			return &Schema{Type: "string", Description: bytesNote}, nil
		}
		return in.nilable(in.array(t, path, owner))
	case reflect.Array:
		s, err := in.array(t, path, owner)
		if err == nil {
			n := t.Len()
			s.MinItems, s.MaxItems = &n, &n
		}
		return s, err
	case reflect.Map:
		return in.nilable(in.mapOf(t, path, owner))
	case reflect.Struct:
		return in.object(t, path, owner)
	}
	return nil, fmt.Errorf("schema: unsupported type %s%s", t, atPath(path))
}

func (in *inferrer) array(t reflect.Type, path, owner string) (*Schema, error) {
	items, err := in.schema(t.Elem(), path+"[]", owner)
	if err != nil {
		return nil, err
	}
	return &Schema{Type: "array", Items: items}, nil
}

func (in *inferrer) mapOf(t reflect.Type, path, owner string) (*Schema, error) {
	switch k := t.Key(); {
	case k.Kind() == reflect.String, k.Implements(textMarshalerType):
	case reflect.Int <= k.Kind() && k.Kind() <= reflect.Uintptr:
	default:
		return nil, fmt.Errorf("schema: unsupported map key type %s%s", k, atPath(path))
	}
	values, err := in.schema(t.Elem(), joinPath(path, "*"), owner)
	if err != nil {
		return nil, err
	}
	return &Schema{Type: "object", AdditionalProperties: values}, nil
}

// object makes the schema of struct type t: closed, properties in field
// order, required unless omitempty, omitzero, a pointer, given a default or
// required:"false".
func (in *inferrer) object(t reflect.Type, path, owner string) (*Schema, error) {
	fs := fields.Of(t)
	s := &Schema{
		Type:          "object",
		Closed:        true,
		Properties:    make(map[string]*Schema, len(fs)),
		PropertyOrder: make([]string, 0, len(fs)),
	}
	for i := range fs {
		f := &fs[i]
		fowner := owner
		if f.Owner.Name() != "" {
			fowner = f.Owner.String()
		}
		fpath := joinPath(path, f.Name)
		base, err := in.schema(f.StructField.Type, fpath, fowner+"."+f.StructField.Name)
		if err != nil {
			return nil, err
		}
		if f.Quoted && base.Type != "" && base.Type != "string" {
			// encoding/json writes and reads the value inside a string.
			base = &Schema{Type: "string", Nullable: base.Nullable}
		}
		if base.Nullable && neverNull(f) {
			c := *base // shared with the type's other occurrences
			c.Nullable = false
			base = &c
		}
		prop, required, errs := applyTags(base, f, fowner)
		in.tagErrs = append(in.tagErrs, errs...)
		s.Properties[f.Name] = prop
		s.PropertyOrder = append(s.PropertyOrder, f.Name)
		if required {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s, nil
}

// neverNull reports whether encoding/json leaves field f out rather than
// write null for it: a slice or map tagged omitempty (left out when nil
// or empty), or omitzero (left out when nil) unless its type has an
// IsZero method of its own, which decides instead.
func neverNull(f *fields.Field) bool {
	t := f.StructField.Type
	if t.Kind() != reflect.Slice && t.Kind() != reflect.Map {
		return false
	}
	if f.OmitEmpty {
		return true
	}
	_, hasIsZero := reflect.PointerTo(t).MethodByName("IsZero") // the method set of *t holds t's
	return f.OmitZero && !hasIsZero
}

// provided calls JSONSchema on a zero value of t.
func provided(t reflect.Type) (*Schema, error) {
	v := reflect.Zero(t)
	if !t.Implements(providerType) {
		v = reflect.New(t)
	}
	s := v.Interface().(SchemaProvider).JSONSchema()
	if s == nil {
		return nil, fmt.Errorf("schema: %s.JSONSchema returned nil", t)
	}
	return s, nil
}

// implements reports whether t or *t implements iface.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

// bytesNote describes []byte, which encoding/json writes as base64.
const bytesNote = "Base64-encoded."

// isBytes reports whether encoding/json writes slice type t as a base64
// string.
func isBytes(t reflect.Type) bool {
	e := t.Elem()
	return e.Kind() == reflect.Uint8 &&
		!reflect.PointerTo(e).Implements(jsonMarshalerType) &&
		!reflect.PointerTo(e).Implements(textMarshalerType)
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func atPath(path string) string {
	if path == "" {
		return ""
	}
	return " at " + path
}
