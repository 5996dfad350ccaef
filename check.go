package ferry

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/schema"
)

// Check reports every problem with what is registered: tool names that
// break the protocol's rules or repeat, tools without a description,
// schemas that clients reject ($ref, true subschemas, descriptions over
// 1024 characters, a root that is not an object), and problems found while
// deriving typed tools' schemas. Each problem names the tool. The HTTP
// handler and [Server.Run] run it first and refuse to start on a problem.
func (s *Server) Check() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return errors.Join(s.problems...)
}

// problem records a start-up problem.
func (s *Server) problem(err error) {
	s.mu.Lock()
	s.problems = append(s.problems, err)
	s.mu.Unlock()
}

// checkTool returns the problems of one tool's description.
func checkTool(t *Tool) []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("tool %q: "+format, append([]any{t.Name}, args...)...))
	}
	if msg := checkToolName(t.Name); msg != "" {
		add("%s", msg)
	}
	switch n := utf8.RuneCountInString(t.Description); {
	case n == 0:
		add("has no description: say what it does and when to use it")
	case n > schema.MaxDescription:
		add("description is %d characters; clients accept at most %d", n, schema.MaxDescription)
	}
	if t.InputSchema != nil {
		if err := checkSchema(t.InputSchema, t.VerbatimSchema); err != nil {
			add("input schema: %v", err)
		}
	}
	if t.OutputSchema != nil {
		if err := checkSchema(t.OutputSchema, t.VerbatimSchema); err != nil {
			add("output schema: %v", err)
		}
	}
	return errs
}

// checkToolName applies the 2025-11-25 naming rules and returns what is
// wrong, or "".
func checkToolName(name string) string {
	if name == "" {
		return "has no name"
	}
	if len(name) > 128 {
		return fmt.Sprintf("name is %d characters; at most 128 are allowed", len(name))
	}
	for _, c := range name {
		ok := c == '_' || c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
		if !ok {
			return fmt.Sprintf("name has %q; use only A-Z a-z 0-9 _ - .", c)
		}
	}
	return ""
}

// checkSchema checks that a raw schema is an object schema that clients
// accept. verbatim skips the portability rules.
func checkSchema(raw json.RawMessage, verbatim bool) error {
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	m, ok := root.(map[string]any)
	if !ok || m["type"] != "object" {
		return errors.New(`the root must be an object schema ("type": "object")`)
	}
	if verbatim {
		return nil
	}
	return portable(m, "")
}

// schemaKeys are the keywords whose values are schemas, and those whose
// values are maps or lists of schemas.
var (
	schemaValued = map[string]bool{"items": true, "additionalProperties": true, "not": true, "contains": true,
		"propertyNames": true, "if": true, "then": true, "else": true, "unevaluatedProperties": true, "unevaluatedItems": true}
	schemaMaps  = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}
	schemaLists = map[string]bool{"anyOf": true, "oneOf": true, "allOf": true, "prefixItems": true}
)

func portable(m map[string]any, path string) error {
	at := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	if _, ok := m["$ref"]; ok {
		return fmt.Errorf("%s uses $ref, which some clients reject: inline the schema", at("$ref"))
	}
	if d, ok := m["description"].(string); ok && utf8.RuneCountInString(d) > schema.MaxDescription {
		return fmt.Errorf("%s is %d characters; clients accept at most %d", at("description"), utf8.RuneCountInString(d), schema.MaxDescription)
	}
	check := func(v any, p string, allowFalse bool) error {
		switch v := v.(type) {
		case bool:
			if v || !allowFalse {
				return fmt.Errorf("%s is the schema %v, which some clients reject: write an object schema", p, v)
			}
		case map[string]any:
			return portable(v, p)
		}
		return nil
	}
	for _, k := range sortedKeys(m) { // in order, so the problem named is always the same
		v := m[k]
		switch {
		case schemaValued[k]:
			if err := check(v, at(k), k == "additionalProperties" || k == "unevaluatedProperties"); err != nil {
				return err
			}
		case schemaMaps[k]:
			sub, _ := v.(map[string]any)
			for _, name := range sortedKeys(sub) {
				s := sub[name]
				if err := check(s, at(k)+"."+name, false); err != nil {
					return err
				}
			}
		case schemaLists[k]:
			list, _ := v.([]any)
			for i, s := range list {
				if err := check(s, fmt.Sprintf("%s[%d]", at(k), i), false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
