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

// misspelled yields each tag key that is not one this package reads but
// close to one, and that one: a likely typo that would otherwise be
// silently ignored. Close is the same but for case, or, ignoring case,
// one edit away (a letter added, left out, changed, or two swapped:
// minLenght), two for a key of eight letters or more (exclusiveMinimun).
// Keys other packages read (json, yaml, db, form, env, validate) are
// further than that from every key this package reads.
func misspelled(tag reflect.StructTag) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for key := range fields.TagKeys(tag) {
			if want, ok := closeKey(key); ok && !yield(key, want) {
				return
			}
		}
	}
}

// closeKey returns the key this package reads that key is a likely typo
// of, if any (see misspelled).
func closeKey(key string) (string, bool) {
	best, bestDist := "", -1
	for known := range knownKeys() {
		if key == known {
			return "", false
		}
		limit := 1
		if len(known) >= 8 {
			limit = 2
		}
		if d := editDistance(strings.ToLower(key), strings.ToLower(known), limit); d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = known, d
		}
	}
	return best, bestDist >= 0
}

// editDistance returns the optimal string alignment distance between a
// and b (insertions, deletions, substitutions and swaps of adjacent
// bytes), or limit+1 when it is above limit. Tag keys are short ASCII.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit || len(a) > 64 || len(b) > 64 {
		return limit + 1
	}
	// rows[i%3][j] is the distance between a[:i] and b[:j].
	var rows [3][65]int
	for j := range len(b) + 1 {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur, prev, prev2 := &rows[i%3], &rows[(i-1)%3], &rows[(i+1)%3] // (i+1)%3 == (i-2)%3
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
	}
	if d := rows[len(a)%3][len(b)]; d <= limit {
		return d
	}
	return limit + 1
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
