package schema

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// suiteGroup is one entry of a JSON-Schema-Test-Suite file: a schema and
// the instances it accepts or refuses.
type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// TestValidateSuite runs the JSON-Schema-Test-Suite (draft 2020-12) files
// for the keywords Ferry emits, vendored in testdata/suite. A group whose
// schema uses something the Schema type cannot express is skipped, and
// counted, with the reason logged. The suite tests plain validation, so the
// validator runs under Strict. The default.json groups whose defaults break
// their own schemas are skipped by design: Validate fills defaults in, so
// Compile refuses such a default.
func TestValidateSuite(t *testing.T) {
	var ran, passed, skipped int
	err := filepath.WalkDir("testdata/suite", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var groups []suiteGroup
		if err := json.Unmarshal(data, &groups); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(path), "testdata/suite/"), ".json")
		for _, g := range groups {
			s, err := loadSuiteSchema(g.Schema)
			if err != nil {
				t.Logf("skip %s / %s (%d cases): %v", name, g.Description, len(g.Tests), err)
				skipped += len(g.Tests)
				continue
			}
			v, err := Compile(s, Strict)
			if err != nil {
				t.Logf("skip %s / %s (%d cases): %v", name, g.Description, len(g.Tests), err)
				skipped += len(g.Tests)
				continue
			}
			for _, c := range g.Tests {
				if string(c.Data) == "null" && s.Type == "object" && !s.Nullable {
					t.Logf("skip %s / %s / %s: Ferry reads null arguments as {}", name, g.Description, c.Description)
					skipped++
					continue
				}
				ran++
				_, errs := v.Validate(c.Data)
				if got := len(errs) == 0; got != c.Valid {
					t.Errorf("%s / %s / %s: %s: valid = %v, want %v (%v)", name, g.Description, c.Description, c.Data, got, c.Valid, errs)
					continue
				}
				passed++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("JSON-Schema-Test-Suite: %d cases ran, %d passed, %d skipped", ran, passed, skipped)
	if ran == 0 {
		t.Fatal("no suite cases ran")
	}
}

// loadSuiteSchema reads a suite schema into a Schema, or says which
// keyword or shape the Schema type cannot express.
func loadSuiteSchema(raw json.RawMessage) (*Schema, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("boolean schema %s", raw)
	}
	s := &Schema{}
	for _, key := range slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}) {
		if err := loadKeyword(s, key, m[key]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func loadKeyword(s *Schema, key string, v json.RawMessage) error {
	var err error
	switch key {
	case "$schema", "description", "title":
	case "default":
		s.Default = v
	case "type":
		err = loadType(s, v)
	case "properties":
		err = loadProperties(s, v)
	case "required":
		err = json.Unmarshal(v, &s.Required)
	case "additionalProperties":
		switch string(v) {
		case "false":
			s.Closed = true
		case "true":
		default:
			s.AdditionalProperties, err = loadSuiteSchema(v)
		}
	case "items":
		s.Items, err = loadSuiteSchema(v)
	case "minItems":
		s.MinItems, err = loadCount(v)
	case "maxItems":
		s.MaxItems, err = loadCount(v)
	case "minLength":
		s.MinLength, err = loadCount(v)
	case "maxLength":
		s.MaxLength, err = loadCount(v)
	case "uniqueItems":
		err = json.Unmarshal(v, &s.UniqueItems)
	case "minimum":
		s.Minimum, err = loadFloat(v)
	case "maximum":
		s.Maximum, err = loadFloat(v)
	case "exclusiveMinimum":
		s.ExclusiveMinimum, err = loadFloat(v)
	case "exclusiveMaximum":
		s.ExclusiveMaximum, err = loadFloat(v)
	case "multipleOf":
		s.MultipleOf, err = loadFloat(v)
	case "pattern":
		err = json.Unmarshal(v, &s.Pattern)
	case "format":
		err = json.Unmarshal(v, &s.Format)
	case "enum":
		err = json.Unmarshal(v, &s.Enum)
	default:
		return fmt.Errorf("keyword %q is not supported", key)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// loadType reads "type": one name, or a name and "null".
func loadType(s *Schema, v json.RawMessage) error {
	var names []string
	if err := json.Unmarshal(v, &names); err != nil {
		var name string
		if err := json.Unmarshal(v, &name); err != nil {
			return err
		}
		names = []string{name}
	}
	if i := slices.Index(names, "null"); i >= 0 && len(names) == 2 {
		s.Nullable = true
		names = slices.Delete(names, i, i+1)
	}
	if len(names) != 1 || names[0] == "null" {
		return fmt.Errorf("type %s cannot be expressed", v)
	}
	s.Type = names[0]
	return nil
}

func loadProperties(s *Schema, v json.RawMessage) error {
	var props map[string]json.RawMessage
	if err := json.Unmarshal(v, &props); err != nil {
		return err
	}
	s.Properties = make(map[string]*Schema, len(props))
	for name, raw := range props {
		sub, err := loadSuiteSchema(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		s.Properties[name] = sub
	}
	return nil
}

func loadCount(v json.RawMessage) (*int, error) {
	f, err := loadFloat(v)
	if err != nil {
		return nil, err
	}
	if *f != math.Trunc(*f) {
		return nil, fmt.Errorf("%s is not a count", v)
	}
	return new(int(*f)), nil
}

func loadFloat(v json.RawMessage) (*float64, error) {
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		return nil, err
	}
	return &f, nil
}
