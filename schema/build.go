package schema

import "encoding/json"

// Prop is a property of an [Object]: a name, its schema and whether it is
// required. Make one with [Required] or [Optional].
type Prop struct {
	name     string
	schema   *Schema
	required bool
}

// Required returns a property the caller must send.
func Required(name string, s *Schema) Prop { return Prop{name, s, true} }

// Optional returns a property the caller may leave out.
func Optional(name string, s *Schema) Prop { return Prop{name, s, false} }

// Object returns a closed object schema (unknown properties are refused)
// with props in order. It panics if a name is empty or repeated, or a
// schema is nil.
func Object(props ...Prop) *Schema {
	s := &Schema{
		Type:          "object",
		Closed:        true,
		Properties:    make(map[string]*Schema, len(props)),
		PropertyOrder: make([]string, 0, len(props)),
	}
	for _, p := range props {
		if p.name == "" || p.schema == nil {
			panic("schema: Object: property without a name or a schema") //nolint:forbidigo // a programmer error in a builder call, documented
		}
		if _, dup := s.Properties[p.name]; dup {
			panic("schema: Object: property " + p.name + " given twice") //nolint:forbidigo // a programmer error in a builder call, documented
		}
		s.Properties[p.name] = p.schema
		s.PropertyOrder = append(s.PropertyOrder, p.name)
		if p.required {
			s.Required = append(s.Required, p.name)
		}
	}
	return s
}

// Text returns a string schema.
func Text(description string) *Schema {
	return &Schema{Type: "string", Description: description}
}

// Date returns a schema for a calendar date written yyyy-MM-dd (format
// date). The description gets " Written yyyy-MM-dd." appended, so models
// send the form the validator accepts.
func Date(description string) *Schema {
	d := "Written yyyy-MM-dd."
	if description != "" {
		d = description + " " + d
	}
	return &Schema{Type: "string", Format: "date", Description: d}
}

// Number returns a number schema.
func Number(description string) *Schema {
	return &Schema{Type: "number", Description: description}
}

// Integer returns an integer schema.
func Integer(description string) *Schema {
	return &Schema{Type: "integer", Description: description}
}

// Flag returns a boolean schema.
func Flag(description string) *Schema {
	return &Schema{Type: "boolean", Description: description}
}

// ID returns a schema for an identifier: a string of at least one
// character.
func ID(description string) *Schema {
	one := 1
	return &Schema{Type: "string", MinLength: &one, Description: description}
}

// ListOf returns an array schema whose items match item.
func ListOf(item *Schema, description string) *Schema {
	return &Schema{Type: "array", Items: item, Description: description}
}

// Choice returns a schema for one of values, a string enum. It panics if
// values is empty.
func Choice(description string, values ...string) *Schema {
	if len(values) == 0 {
		panic("schema: Choice without values") //nolint:forbidigo // a programmer error in a builder call, documented
	}
	enum := make([]json.RawMessage, len(values))
	for i, v := range values {
		enum[i] = quote(v)
	}
	return &Schema{Type: "string", Enum: enum, Description: description}
}
