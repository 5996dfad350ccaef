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

	"github.com/ferry-mcp/ferry/internal/fields"
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

// tagRules lists the tags in the order they are applied. doc, title,
// enum, required and default are the vocabulary every reader of fields
// shares (internal/fields); the others are JSON Schema's own.
var tagRules = [...]tagRule{
	{"doc", "", func(s *Schema, v string) error { s.Description = v; return nil }},
	{"title", "", func(s *Schema, v string) error { s.Title = v; return nil }},
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
}

// applyTags returns base with the keywords from f's tags, a copy if any
// apply, and whether the property is required. owner names the struct
// that declares f, for errors. It returns every tag that cannot apply, not
// only the first.
func applyTags(base *Schema, f *fields.Field, owner string) (*Schema, bool, []error) {
	tag := f.StructField.Tag
	var errs []error
	tagErr := func(key string, err error) {
		errs = append(errs, &TagError{Type: owner, Field: f.StructField.Name, Tag: key, Value: tag.Get(key), Err: err})
	}
	for key, want := range misspelled(tag) {
		tagErr(key, fmt.Errorf("is not a tag this package reads; did you mean %s?", want))
	}
	vocab, verrs := fields.Parse(tag)
	for _, e := range verrs {
		tagErr(e.Key, e.Err)
	}
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
			tagErr(r.key, fmt.Errorf("does not apply to type %s", f.StructField.Type))
			continue
		}
		if err := r.apply(s, v); err != nil {
			tagErr(r.key, err)
		}
	}
	// A property with a default may be left out: the validator fills it in.
	required := !f.Omit() && !f.ViaPointer && f.StructField.Type.Kind() != reflect.Pointer && !vocab.HasDefault
	switch vocab.Required {
	case fields.RequiredYes:
		required = true
	case fields.RequiredNo:
		required = false
	}
	if s == nil {
		return base, required, errs
	}
	if base.Description == bytesNote && base.Type == "string" && vocab.Doc != "" {
		s.Description = strings.TrimSpace(vocab.Doc + " " + bytesNote)
	}
	if key, err := checkRanges(s); err != nil {
		tagErr(key, err)
	}
	return s, required, errs
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
	values := fields.SplitList(v)
	if values == nil {
		return nil // reported by fields.Parse
	}
	target.Enum = make([]json.RawMessage, len(values))
	for i, value := range values {
		data, err := parseValue(target, value)
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

// misspelled yields each tag key that differs only in case from one this
// package reads, and that one: a likely typo that would otherwise be
// silently ignored.
func misspelled(tag reflect.StructTag) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for key := range fields.TagKeys(tag) {
			for known := range knownKeys() {
				if key != known && strings.EqualFold(key, known) {
					if !yield(key, known) {
						return
					}
					break
				}
			}
		}
	}
}

// knownKeys yields the tag keys this package reads, with those it leaves
// to other readers (suggest, required).
func knownKeys() iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, r := range tagRules {
			if !yield(r.key) {
				return
			}
		}
		for _, k := range fields.Keys {
			if !yield(k) {
				return
			}
		}
	}
}
