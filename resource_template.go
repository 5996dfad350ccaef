package ferry

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	internalfields "github.com/ferry-mcp/ferry/internal/fields"
)

// This file holds typed resource templates: variables that fill a
// struct, converted and checked.

// AddResourceTemplate registers a resource template whose variables fill
// the struct V: each string, integer or boolean field takes the variable of
// its json name. A variable that does not convert to its field's type, or
// that is not among its field's enum values, makes the URI name nothing
// (not found). Enum tags also give completion values; suggest tags give
// completion values without restricting.
func AddResourceTemplate[V any](s *Server, t ResourceTemplate, h func(ctx context.Context, uri string, vars V) ([]ResourceContents, error)) {
	t.Groups = handlerGroups(t.Groups, h)
	vars, err := templateFields(reflect.TypeFor[V]())
	if err != nil {
		s.problem(fmt.Errorf("resource template %q: %w", t.URITemplate, err))
		return
	}
	if t.Values == nil {
		for _, f := range vars {
			if f.values != nil {
				if t.Values == nil {
					t.Values = map[string][]string{}
				}
				t.Values[f.name] = f.values
			}
		}
	}
	s.AddResourceTemplate(t, func(ctx context.Context, req *ReadResourceRequest) ([]ResourceContents, error) {
		var v V
		rv := reflect.ValueOf(&v).Elem()
		for _, f := range vars {
			raw, ok := req.Vars[f.name]
			if !ok {
				if !f.hasDefault {
					continue
				}
				raw = f.dflt
			}
			if f.only && !slices.Contains(f.values, raw) {
				return nil, fmt.Errorf("%w: variable %s: %q is not one of %s", ErrResourceNotFound, f.name, raw, strings.Join(f.values, ", "))
			}
			if err := setScalar(internalfields.Value(rv, f.index), raw); err != nil {
				return nil, fmt.Errorf("%w: variable %s: %w", ErrResourceNotFound, f.name, err)
			}
		}
		return h(ctx, req.URI, v)
	})
}

// templateVar is what a variables struct says of one variable.
type templateVar struct {
	name       string
	index      []int
	values     []string // to complete: the enum or suggest tag
	only       bool     // values are the only ones allowed (an enum tag)
	dflt       string   // the default tag: the value of a variable left out
	hasDefault bool
}

// templateFields maps a variables struct, reading its fields as
// encoding/json does: the field of each variable, the values to complete
// (enum and suggest tags), the only values allowed (enum tags) and
// defaults. It reports every field and tag that cannot apply.
func templateFields(t reflect.Type) ([]templateVar, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("variables type %v must be a struct", t)
	}
	fields, errs := internalfields.Vars(t, "variable", func(t reflect.Type) bool { return scalarKind(t.Kind()) },
		"a string, an integer or a boolean")
	vars := make([]templateVar, 0, len(fields))
	for _, f := range fields {
		v := templateVar{name: f.Name, index: f.Index, values: f.Values, only: f.Only, dflt: f.Tags.Default, hasDefault: f.Tags.HasDefault}
		if v.hasDefault {
			if err := setScalar(reflect.New(f.StructField.Type).Elem(), v.dflt); err != nil {
				errs = append(errs, fmt.Errorf("variable %s (%v.%s): tag default %q: %w", f.Name, f.Owner, f.StructField.Name, v.dflt, err))
			}
		}
		vars = append(vars, v)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return vars, nil
}

// scalarKind reports whether a variable can fill a field of kind k.
func scalarKind(k reflect.Kind) bool {
	return k == reflect.String || k == reflect.Bool ||
		reflect.Int <= k && k <= reflect.Int64 || reflect.Uint <= k && k <= reflect.Uint64
}

// setScalar sets v, of a kind [scalarKind] accepts, from a variable's text.
func setScalar(v reflect.Value, raw string) error {
	switch k := v.Kind(); {
	case k == reflect.String:
		v.SetString(raw)
	case k == reflect.Bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return fmt.Errorf("expected true or false, got %q", raw)
		}
		v.SetBool(b)
	case reflect.Uint <= k && k <= reflect.Uint64:
		n, err := strconv.ParseUint(raw, 10, v.Type().Bits())
		if err != nil {
			return fmt.Errorf("expected a whole number from 0 to %d, got %q", uint64(1)<<v.Type().Bits()-1, raw)
		}
		v.SetUint(n)
	default:
		n, err := strconv.ParseInt(raw, 10, v.Type().Bits())
		if err != nil {
			return fmt.Errorf("expected a whole number from %d to %d, got %q", int64(-1)<<(v.Type().Bits()-1), int64(1)<<(v.Type().Bits()-1)-1, raw)
		}
		v.SetInt(n)
	}
	return nil
}
