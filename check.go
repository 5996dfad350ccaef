package ferry

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/schema"
)

// Check reports every problem with what is registered, joined into one
// error, each naming its tool (or prompt, or resource): tool names that
// break the protocol's rules or repeat, tools without a description,
// schemas that clients reject ($ref, true subschemas, descriptions over
// 1024 characters, a root that is not an object), and problems found while
// deriving typed tools' schemas. It returns nil when there are none.
//
// A server built from data (table names, proto methods, a config file)
// should call Check before serving and report its error: [NewHTTPHandler]
// panics and [Server.Run] returns an error on a problem, so that a
// misdeclared server never starts. Once a transport serves, problems of
// tools added later are logged at Error level instead, naming the tool,
// and the tool is not added; Check does not report them.
func (s *Server) Check() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return errors.Join(s.problems...)
}

// startServing runs [Server.Check] for a transport about to serve, and
// marks the server serving when it passes.
func (s *Server) startServing() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := errors.Join(s.problems...); err != nil {
		return err
	}
	s.serving = true
	return nil
}

// problem records a start-up problem, or logs it at Error level when the
// server already serves (the problem's text names what has it).
func (s *Server) problem(err error) {
	s.mu.Lock()
	serving := s.serving
	if !serving {
		s.problems = append(s.problems, err)
	}
	s.mu.Unlock()
	if serving {
		s.logger.Error("registration problem found after serving started", "problem", err)
	}
}

// lateToolProblems logs the problems of a tool added after serving
// started, which is therefore not added.
func (s *Server) lateToolProblems(tool string, errs []error) {
	for _, err := range errs {
		s.logger.Error("tool not added: a problem found after serving started", "tool", tool, "problem", err)
	}
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
