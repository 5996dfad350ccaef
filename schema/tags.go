package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// TagError reports a struct tag that cannot become a schema keyword: a
// value that does not parse, a format or pattern that is not valid, or a
// keyword that does not apply to the field's type.
type TagError struct {
	Type  string // the Go type that declares the field, such as "main.SearchIn"
	Field string // the Go field name, such as "Limit"
	Tag   string // the tag key, such as "minimum"
	Value string // the tag's value
	Err   error  // what is wrong, phrased to follow the tag: "is not a number"
}

// Error returns a message such as
// `schema: main.SearchIn.Limit: tag minimum "x" is not a number`.
func (e *TagError) Error() string {
	return fmt.Sprintf("schema: %s.%s: tag %s %q %v", e.Type, e.Field, e.Tag, e.Value, e.Err)
}

// Unwrap returns e.Err.
func (e *TagError) Unwrap() error { return e.Err }

// formats lists the values the format tag accepts, the formats a validator
// checks.
var formats = []string{"email", "uri", "uuid", "date", "date-time", "time", "hostname", "ipv4", "ipv6"}

const (
	numeric = "number integer"
	scalar  = "string number integer boolean"
)

// tagRule turns one tag into a keyword of a schema whose Type is one of
// types ("" for any type).
type tagRule struct {
	key   string
	types string
	apply func(s *Schema, v string) error
}

// tagRules lists the tags in the order they are applied.
var tagRules = [...]tagRule{
	{"doc", "", func(s *Schema, v string) error { s.Description = v; return nil }},
	{"minimum", numeric, setNumber(func(s *Schema) **float64 { return &s.Minimum })},
	{"maximum", numeric, setNumber(func(s *Schema) **float64 { return &s.Maximum })},
	{"exclusiveMinimum", numeric, setNumber(func(s *Schema) **float64 { return &s.ExclusiveMinimum })},
	{"exclusiveMaximum", numeric, setNumber(func(s *Schema) **float64 { return &s.ExclusiveMaximum })},
	{"multipleOf", numeric, setMultipleOf},
	{"minLength", "string", setCount(func(s *Schema) **int { return &s.MinLength })},
	{"maxLength", "string", setCount(func(s *Schema) **int { return &s.MaxLength })},
	{"pattern", "string", setPattern},
	{"format", "string", setFormat},
	{"minItems", "array", setCount(func(s *Schema) **int { return &s.MinItems })},
	{"maxItems", "array", setCount(func(s *Schema) **int { return &s.MaxItems })},
	{"uniqueItems", "array", func(s *Schema, v string) (err error) { s.UniqueItems, err = parseBool(v); return err }},
	{"enum", scalar + " array", setEnum},
	{"default", "", func(s *Schema, v string) (err error) { s.Default, err = parseValue(s, v); return err }},
	{"example", "", setExample},
	{"deprecated", "", func(s *Schema, v string) (err error) { s.Deprecated, err = parseBool(v); return err }},
	{"required", "", func(_ *Schema, v string) error { _, err := parseBool(v); return err }},
}

// applyTags returns base with the keywords from f's tags, a copy if any
// apply, and whether the property is required. owner names the struct
// that declares f, for errors.
func applyTags(base *Schema, f field, owner string) (*Schema, bool, error) {
	tag := f.sf.Tag
	tagErr := func(key string, err error) error {
		return &TagError{Type: owner, Field: f.sf.Name, Tag: key, Value: tag.Get(key), Err: err}
	}
	if key, want := misspelled(tag); key != "" {
		return nil, false, tagErr(key, fmt.Errorf("is not a tag this package reads; did you mean %s?", want))
	}
	required := !f.omit && !f.viaPtr && f.sf.Type.Kind() != reflect.Pointer
	var s *Schema
	for _, r := range tagRules {
		v, ok := tag.Lookup(r.key)
		if !ok {
			continue
		}
		if s == nil {
			c := *base
			s = &c
		}
		if r.types != "" && !slices.Contains(strings.Fields(r.types), s.Type) {
			return nil, false, tagErr(r.key, fmt.Errorf("does not apply to type %s", f.sf.Type))
		}
		if err := r.apply(s, v); err != nil {
			return nil, false, tagErr(r.key, err)
		}
		if r.key == "required" {
			required = v == "true"
		}
	}
	if s == nil {
		return base, required, nil
	}
	if doc, ok := tag.Lookup("doc"); ok && base.Description == bytesNote && base.Type == "string" {
		s.Description = strings.TrimSpace(doc + " " + bytesNote)
	}
	if key, err := checkRanges(s); err != nil {
		return nil, false, tagErr(key, err)
	}
	return s, required, nil
}

// checkRanges reports a lower bound above its upper bound, naming the tag
// of the upper bound.
func checkRanges(s *Schema) (string, error) {
	if s.Minimum != nil && s.Maximum != nil && *s.Minimum > *s.Maximum {
		return "maximum", fmt.Errorf("is less than minimum %v", *s.Minimum)
	}
	if s.MinLength != nil && s.MaxLength != nil && *s.MinLength > *s.MaxLength {
		return "maxLength", fmt.Errorf("is less than minLength %d", *s.MinLength)
	}
	if s.MinItems != nil && s.MaxItems != nil && *s.MinItems > *s.MaxItems {
		return "maxItems", fmt.Errorf("is less than minItems %d", *s.MinItems)
	}
	return "", nil
}

func setNumber(field func(*Schema) **float64) func(*Schema, string) error {
	return func(s *Schema, v string) error {
		n, err := parseNumber(v)
		*field(s) = &n
		return err
	}
}

func setMultipleOf(s *Schema, v string) error {
	n, err := parseNumber(v)
	if err != nil {
		return err
	}
	if n <= 0 {
		return errors.New("is not greater than 0")
	}
	s.MultipleOf = &n
	return nil
}

func setCount(field func(*Schema) **int) func(*Schema, string) error {
	return func(s *Schema, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return errors.New("is not a whole number of at least 0")
		}
		*field(s) = &n
		return nil
	}
}

func setPattern(s *Schema, v string) error {
	if _, err := regexp.Compile(v); err != nil {
		return fmt.Errorf("does not compile: %w", err)
	}
	s.Pattern = v
	return nil
}

func setFormat(s *Schema, v string) error {
	if !slices.Contains(formats, v) {
		return fmt.Errorf("is not one of %s", strings.Join(formats, ", "))
	}
	s.Format = v
	return nil
}

// setEnum sets the allowed values from a comma-separated list, each
// trimmed of spaces and parsed for the type. On an array it constrains the
// items.
func setEnum(s *Schema, v string) error {
	target := s
	if s.Type == "array" {
		if s.Items == nil || !slices.Contains(strings.Fields(scalar), s.Items.Type) {
			return errors.New("does not apply to arrays of this item type")
		}
		items := *s.Items
		target, s.Items = &items, &items
	}
	values := strings.Split(v, ",")
	target.Enum = make([]json.RawMessage, len(values))
	for i, value := range values {
		data, err := parseValue(target, strings.TrimSpace(value))
		if err != nil {
			return err
		}
		target.Enum[i] = data
	}
	return nil
}

func setExample(s *Schema, v string) error {
	data, err := parseValue(s, v)
	s.Examples = []json.RawMessage{data}
	return err
}

// parseValue returns text as a JSON value of s's type: a string is quoted,
// a number or boolean parsed; other types take JSON text.
func parseValue(s *Schema, text string) (json.RawMessage, error) {
	switch s.Type {
	case "string":
		return quote(text), nil
	case "integer":
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return strconv.AppendInt(nil, n, 10), nil
		}
		if n, err := strconv.ParseUint(text, 10, 64); err == nil {
			return strconv.AppendUint(nil, n, 10), nil
		}
		return nil, errors.New("is not an integer")
	case "number":
		n, err := parseNumber(text)
		if err != nil {
			return nil, err
		}
		return strconv.AppendFloat(nil, n, 'g', -1, 64), nil
	case "boolean":
		b, err := parseBool(text)
		return strconv.AppendBool(nil, b), err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(text)); err != nil {
		return nil, errors.New("is not JSON")
	}
	return buf.Bytes(), nil
}

func parseNumber(v string) (float64, error) {
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, errors.New("is not a number")
	}
	return n, nil
}

func parseBool(v string) (bool, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errors.New("is not true or false")
}

// misspelled returns a tag key that differs only in case from one this
// package reads, and that one: a likely typo that would otherwise be
// silently ignored.
func misspelled(tag reflect.StructTag) (key, want string) {
	for key := range tagKeys(tag) {
		for _, r := range tagRules {
			if key != r.key && strings.EqualFold(key, r.key) {
				return key, r.key
			}
		}
	}
	return "", ""
}

// tagKeys yields the keys of a struct tag in the conventional format, as
// [reflect.StructTag.Lookup] parses it.
func tagKeys(tag reflect.StructTag) iter.Seq[string] {
	return func(yield func(string) bool) {
		for tag != "" {
			tag = reflect.StructTag(strings.TrimLeft(string(tag), " "))
			i := 0
			for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
				i++
			}
			if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
				return
			}
			key := string(tag[:i])
			tag = tag[i+1:]
			i = 1
			for i < len(tag) && tag[i] != '"' {
				if tag[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(tag) || !yield(key) {
				return
			}
			tag = tag[i+1:]
		}
	}
}
