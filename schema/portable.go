package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDescription is the longest description, in characters, that every
// client accepts; [Schema.Portable] and [PortableJSON] report longer ones.
const MaxDescription = 1024

// Portable reports what in s some MCP clients reject, as [PortableJSON]
// does for the JSON s marshals to. A Schema cannot hold $ref or true
// subschemas, so what it can hold is a description longer than
// [MaxDescription] characters, an empty property name or a nil subschema.
func (s *Schema) Portable() error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	return PortableJSON(data)
}

// PortableJSON reports what in the JSON Schema data some MCP clients
// reject: $ref (inline the schema instead), boolean subschemas (true
// anywhere; false except as additionalProperties or unevaluatedProperties),
// descriptions longer than [MaxDescription] characters, empty property
// names and null subschemas. The error lists the problems, one per line,
// each with its path (such as items[].name or anyOf[1]), in a fixed order:
// the first 20, then how many more there are. A path is cut to a few
// hundred characters, so that a deeply nested schema costs time in
// proportion to its size.
// Data that is not a JSON object is one problem.
func PortableJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return fmt.Errorf("schema: not valid JSON: %w", err)
	}
	p := portability{}
	p.subschema(root, "", false)
	if p.more > 0 {
		p.errs = append(p.errs, fmt.Errorf("schema: and %d more problems", p.more))
	}
	return errors.Join(p.errs...)
}

// Bounds on what [PortableJSON] reports of a schema it did not write
// itself (ferry lint reads other servers' schemas): problems past the
// first maxPortabilityErrors are counted, and a property name in a path is
// cut at maxPathName characters, and a whole path after maxPath bytes.
const (
	maxPortabilityErrors = 20
	maxPathName          = 80
	maxPath              = 400
)

// extendPath is path followed by more, cut after maxPath bytes (and
// ended with "..."). A path already cut stays as it is, so that each
// level of a deep schema costs at most maxPath bytes, not the whole
// path above it.
func extendPath(path, more string) string {
	if len(path) >= maxPath && strings.HasSuffix(path, "...") {
		return path
	}
	path += more
	if len(path) <= maxPath {
		return path
	}
	cut := maxPath
	for cut > 0 && !utf8.RuneStart(path[cut]) {
		cut--
	}
	return path[:cut] + "..."
}

// joinStep is path followed by the step name, with a dot between them
// unless path is empty; cut as [extendPath] cuts.
func joinStep(path, name string) string {
	if path == "" {
		return extendPath("", name)
	}
	return extendPath(path, "."+name)
}

// pathName is name as a path shows it, cut to maxPathName characters.
func pathName(name string) string {
	if utf8.RuneCountInString(name) <= maxPathName {
		return name
	}
	return string([]rune(name)[:maxPathName]) + "..."
}

// The keywords whose value is a schema, a map of schemas or a list of
// schemas, and how a path names what they hold.
var (
	schemaValued = map[string]string{"items": "[]", "additionalProperties": "*", "unevaluatedProperties": "*",
		"not": "not", "contains": "contains", "propertyNames": "propertyNames", "if": "if", "then": "then",
		"else": "else", "unevaluatedItems": "unevaluatedItems", "additionalItems": "additionalItems"}
	schemaMaps  = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}
	schemaLists = map[string]bool{"anyOf": true, "oneOf": true, "allOf": true, "prefixItems": true}
)

type portability struct {
	errs []error
	more int // problems past maxPortabilityErrors
}

func (p *portability) fail(format string, args ...any) {
	if len(p.errs) >= maxPortabilityErrors {
		p.more++
		return
	}
	p.errs = append(p.errs, fmt.Errorf("schema: "+format, args...))
}

// subschema checks v, found at path. allowFalse says the keyword holding
// it may be false.
func (p *portability) subschema(v any, path string, allowFalse bool) {
	switch v := v.(type) {
	case map[string]any:
		p.object(v, path)
	case bool:
		if v && path == "" {
			p.fail("the schema is true, which some clients reject: write an object schema")
		} else if v || !allowFalse {
			p.fail("the schema %v%s, which some clients reject: write an object schema", v, atPath(path))
		}
	case nil:
		p.fail("null schema%s", atPath(path))
	default:
		p.fail("the schema%s is not an object", atPath(path))
	}
}

func (p *portability) object(m map[string]any, path string) {
	if _, ok := m["$ref"]; ok {
		p.fail("$ref%s, which some clients reject: inline the schema", atPath(path))
	}
	if d, ok := m["description"].(string); ok {
		if n := utf8.RuneCountInString(d); n > MaxDescription {
			p.fail("description%s has %d characters, more than %d", atPath(path), n, MaxDescription)
		}
	}
	for _, k := range slices.Sorted(mapKeys(m)) {
		v := m[k]
		switch {
		case schemaValued[k] != "":
			p.subschema(v, stepPath(path, k), k == "additionalProperties" || k == "unevaluatedProperties")
		case schemaMaps[k]:
			sub, _ := v.(map[string]any)
			for _, name := range slices.Sorted(mapKeys(sub)) {
				if name == "" && k == "properties" {
					p.fail("empty property name%s", atPath(path))
					continue
				}
				sp := joinStep(path, pathName(name))
				if k != "properties" {
					sp = joinStep(path, k+"."+pathName(name))
				}
				p.subschema(sub[name], sp, false)
			}
		case schemaLists[k]:
			list, _ := v.([]any)
			for i, s := range list {
				p.subschema(s, extendPath(joinStep(path, k), "["+strconv.Itoa(i)+"]"), false)
			}
		}
	}
}

// stepPath extends path by a schema-valued keyword: items[] for items,
// .* for additionalProperties, .not for not.
func stepPath(path, keyword string) string {
	step := schemaValued[keyword]
	if strings.HasPrefix(step, "[") {
		return extendPath(path, step)
	}
	return joinStep(path, step)
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
