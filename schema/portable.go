package schema

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxDescription is the longest description, in characters, that every
// client accepts; [Schema.Portable] reports longer ones.
const MaxDescription = 1024

// Portable reports what in s some MCP clients reject: a description longer
// than [MaxDescription] characters, an empty property name or a nil
// subschema. The error lists every problem, each with its path (such as
// items[].name). A Schema cannot hold $ref or true subschemas, so it needs
// no check for them.
func (s *Schema) Portable() error {
	var errs []error
	s.portable("", &errs)
	return errors.Join(errs...)
}

func (s *Schema) portable(path string, errs *[]error) {
	if n := utf8.RuneCountInString(s.Description); n > MaxDescription {
		*errs = append(*errs, fmt.Errorf("schema: description%s has %d characters, more than %d", atPath(path), n, MaxDescription))
	}
	for _, name := range s.propertyNames() {
		p := joinPath(path, name)
		switch {
		case name == "":
			*errs = append(*errs, fmt.Errorf("schema: empty property name%s", atPath(path)))
		case s.Properties[name] == nil:
			*errs = append(*errs, fmt.Errorf("schema: nil schema at %s", p))
		default:
			s.Properties[name].portable(p, errs)
		}
	}
	if s.AdditionalProperties != nil {
		s.AdditionalProperties.portable(joinPath(path, "*"), errs)
	}
	if s.Items != nil {
		s.Items.portable(path+"[]", errs)
	}
}
