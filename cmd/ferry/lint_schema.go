package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxSchemaDepth bounds how deep schemaCheck follows a schema: deeper
// nesting is one problem, not a deep recursion.
const maxSchemaDepth = 64

// maxSchemaProblems bounds the problems one schema reports; the rest are
// counted in a last one, so that a hostile schema's thousands of broken
// subschemas do not become thousands of lines.
const maxSchemaProblems = 20

// jsonTypes are the type names of JSON Schema.
var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// Keywords by the kind of value JSON Schema 2020-12 gives them.
var (
	kwSchema = []string{"additionalProperties", "unevaluatedProperties", "items", "contains", "not",
		"if", "then", "else", "propertyNames", "unevaluatedItems"}
	kwSchemaMap  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	kwSchemaList = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	kwCount      = []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
		"minContains", "maxContains"}
	kwNumber = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
	kwString = []string{"title", "description", "format", "$comment", "$id", "$schema", "$anchor"}
)

// schemaCheck collects what makes a JSON Schema invalid under draft
// 2020-12: keywords whose values have the wrong kind, unknown type names,
// patterns that are not regular expressions. It does not judge
// portability (schema.PortableJSON does) and accepts keywords it does not
// know, as JSON Schema does.
type schemaCheck struct {
	problems []string
	more     int // problems past maxSchemaProblems, counted only
}

func (c *schemaCheck) fail(path, format string, args ...any) {
	if len(c.problems) == maxSchemaProblems {
		c.more++
		return
	}
	at := ""
	if path != "" {
		at = " at " + path
	}
	c.problems = append(c.problems, fmt.Sprintf(format, args...)+at)
}

// invalidSchema returns the problems of the schema data, in a fixed order.
func invalidSchema(data json.RawMessage) []string {
	var root any
	if err := decodeJSON(data, &root); err != nil {
		return []string{"is not JSON: " + err.Error()}
	}
	c := &schemaCheck{}
	c.schema(root, "", 0)
	if c.more > 0 {
		c.problems = append(c.problems, fmt.Sprintf("and %d more %s", c.more, plural(c.more, "problem", "problems")))
	}
	return c.problems
}

// schema checks one subschema: an object or a boolean.
func (c *schemaCheck) schema(v any, path string, depth int) {
	m, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); !isBool {
			c.fail(path, "a schema is %s, not an object or a boolean", kindOf(v))
		}
		return
	}
	if depth >= maxSchemaDepth {
		c.fail(path, "schemas nest deeper than %d", maxSchemaDepth)
		return
	}
	c.typeKeyword(m, path)
	for _, k := range slices.Sorted(mapKeys(m)) {
		c.keyword(k, m[k], join(path, k), depth)
	}
}

func (c *schemaCheck) typeKeyword(m map[string]any, path string) {
	t, ok := m["type"]
	if !ok {
		return
	}
	names := []any{t}
	if list, isList := t.([]any); isList {
		names = list
		if len(list) == 0 {
			c.fail(join(path, "type"), "type is an empty list")
		}
	}
	var seen []string
	for _, n := range names {
		s, isString := n.(string)
		switch {
		case !isString:
			c.fail(join(path, "type"), "type holds %s, not a type name", kindOf(n))
		case !slices.Contains(jsonTypes, s):
			c.fail(join(path, "type"), "type %q is not one of %s", s, strings.Join(jsonTypes, ", "))
		case slices.Contains(seen, s):
			c.fail(join(path, "type"), "type names %q twice", s)
		}
		seen = append(seen, s)
	}
}

// keyword checks the value v of the keyword k, at path (which ends in k).
func (c *schemaCheck) keyword(k string, v any, path string, depth int) {
	switch {
	case k == "items":
		if _, isList := v.([]any); isList {
			c.fail(path, "items is a list (draft 4 to 2019-09); 2020-12 writes it as prefixItems")
			return
		}
		c.schema(v, path, depth+1)
	case slices.Contains(kwSchema, k):
		c.schema(v, path, depth+1)
	case slices.Contains(kwSchemaMap, k):
		m, ok := v.(map[string]any)
		if !ok {
			c.fail(path, "%s is %s, not an object of schemas", k, kindOf(v))
			return
		}
		for _, name := range slices.Sorted(mapKeys(m)) {
			if k == "patternProperties" {
				c.pattern(name, path)
			}
			c.schema(m[name], join(path, name), depth+1)
		}
	case slices.Contains(kwSchemaList, k):
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			c.fail(path, "%s is %s, not a non-empty list of schemas", k, kindOf(v))
			return
		}
		for i, s := range list {
			c.schema(s, fmt.Sprintf("%s[%d]", path, i), depth+1)
		}
	case slices.Contains(kwCount, k):
		if n, ok := v.(json.Number); !ok || !isCount(n) {
			c.fail(path, "%s is %s, not a non-negative integer", k, kindOf(v))
		}
	case slices.Contains(kwNumber, k):
		if _, ok := v.(json.Number); !ok {
			c.fail(path, "%s is %s, not a number", k, kindOf(v))
		}
	case k == "multipleOf":
		if n, ok := v.(json.Number); !ok || !positive(n) {
			c.fail(path, "multipleOf is %s, not a number above 0", kindOf(v))
		}
	case slices.Contains(kwString, k):
		if _, ok := v.(string); !ok {
			c.fail(path, "%s is %s, not a string", k, kindOf(v))
		}
	case k == "pattern":
		s, ok := v.(string)
		if !ok {
			c.fail(path, "pattern is %s, not a string", kindOf(v))
			return
		}
		c.pattern(s, path)
	default:
		c.valueKeyword(k, v, path)
	}
}

// valueKeyword checks the keywords that hold values, not schemas.
func (c *schemaCheck) valueKeyword(k string, v any, path string) {
	switch k {
	case "required":
		list, ok := v.([]any)
		if !ok {
			c.fail(path, "required is %s, not a list of property names", kindOf(v))
			return
		}
		var seen []string
		for _, n := range list {
			s, isString := n.(string)
			switch {
			case !isString:
				c.fail(path, "required holds %s, not a property name", kindOf(n))
			case slices.Contains(seen, s):
				c.fail(path, "required names %q twice", s)
			}
			seen = append(seen, s)
		}
	case "enum":
		if _, ok := v.([]any); !ok {
			c.fail(path, "enum is %s, not a list of values", kindOf(v))
		}
	case "uniqueItems", "deprecated", "readOnly", "writeOnly":
		if _, ok := v.(bool); !ok {
			c.fail(path, "%s is %s, not a boolean", k, kindOf(v))
		}
	}
}

// pattern fails a pattern that is no regular expression in any dialect:
// an unclosed group or class, a repeat of nothing. What only RE2 lacks
// (lookaround, backreferences) passes, since clients use ECMA 262.
func (c *schemaCheck) pattern(p, path string) {
	_, err := regexp.Compile(p)
	var se *syntax.Error
	if !errors.As(err, &se) {
		return
	}
	switch se.Code {
	case syntax.ErrMissingParen, syntax.ErrMissingBracket, syntax.ErrUnexpectedParen,
		syntax.ErrMissingRepeatArgument, syntax.ErrInvalidCharRange, syntax.ErrTrailingBackslash:
		c.fail(path, "pattern %q is not a regular expression: %s", p, se.Code)
	}
}

// kindOf names the JSON kind of a decoded value, for messages.
func kindOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + v.String()
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// isCount reports whether n is a non-negative integer (2.0 is one).
func isCount(n json.Number) bool {
	f, err := n.Float64()
	return err == nil && f >= 0 && f == math.Trunc(f)
}

func positive(n json.Number) bool {
	f, err := n.Float64()
	return err == nil && f > 0
}

// join extends a dotted path, a name over maxShownName characters cut
// and marked with "...": every problem below it repeats the path.
func join(path, name string) string {
	if utf8.RuneCountInString(name) > maxShownName {
		name = string([]rune(name)[:maxShownName]) + "..."
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

// mapKeys yields the keys of m.
func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// nullableArrays returns the paths (low, shelves[].skus) at which the
// output schema data lets a value be an array or null, its type a list
// holding both: what Go writes for a slice that may be nil. It follows
// properties and items, the first maxSchemaProblems paths, to
// maxSchemaDepth; data that is not a schema has none.
func nullableArrays(data json.RawMessage) []string {
	var root any
	if decodeJSON(data, &root) != nil {
		return nil
	}
	var paths []string
	more := 0
	var walk func(v any, path string, depth int)
	walk = func(v any, path string, depth int) {
		m, ok := v.(map[string]any)
		if !ok || depth >= maxSchemaDepth {
			return
		}
		if types, isList := m["type"].([]any); isList && slices.Contains(types, any("array")) && slices.Contains(types, any("null")) {
			if len(paths) < maxSchemaProblems {
				paths = append(paths, displayName(path))
			} else {
				more++
			}
		}
		if props, ok := m["properties"].(map[string]any); ok {
			for _, name := range slices.Sorted(mapKeys(props)) {
				walk(props[name], join(path, name), depth+1)
			}
		}
		walk(m["items"], path+"[]", depth+1)
	}
	walk(root, "", 0)
	if more > 0 {
		paths = append(paths, fmt.Sprintf("%d more", more))
	}
	return paths
}
