package entity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// This file serves JSON and array fields: values a record shows as JSON
// of their own rather than as one scalar.
//
//   - A JSON field is served as the value the column holds, compacted;
//     key order is the engine's (PostgreSQL's jsonb and MySQL's JSON
//     sort keys, SQLite and MariaDB keep them as written). A SQLite text
//     that is not JSON is served as a string of its text. A write takes
//     the value itself ({"color": "red"}, not its text), checked (no NUL
//     character, which PostgreSQL's jsonb cannot store; no number beyond
//     a double's range, which MySQL refuses; at most [MaxJSONDepth]
//     levels deep), and binds its JSON text, never splicing it. A null
//     writes SQL NULL.
//   - An array field (PostgreSQL) is served as a JSON array. A write
//     takes a JSON array of its items (or null), each checked as a value
//     of the item type, bound as one array literal.
//
// On SQLite a column declared JSON has NUMERIC affinity: a top-level
// number is stored as SQLite's integer or real, and served as that
// number.

// MaxJSONDepth is the deepest nesting of a JSON value a write takes.
const MaxJSONDepth = 32

// structured reports whether t is a type served as JSON of its own.
func structured(t Type) bool { return t == JSON || t == Array }

// checkStructured refuses a JSON or array field in a role it cannot
// have: a key, a natural key, sorted, searched or aggregated.
func checkStructured(e *Entity, f *Field) error {
	if f.Type == Array && (f.Items < Text || f.Items > UUID || f.Items == Timestamp || f.Items == Date) {
		return fmt.Errorf("entity: %s.%s: an array's items are text, integers, numbers, booleans or UUIDs, not %s", e.Name, f.Name, f.Items)
	}
	if !structured(f.Type) {
		return nil
	}
	switch {
	case f.Name == e.Key || f.Name == e.NaturalKey:
		return fmt.Errorf("entity: %s.%s: a %s field cannot be a key", e.Name, f.Name, f.Type)
	case f.Sortable || f.Searchable || f.Aggregatable:
		return fmt.Errorf("entity: %s.%s: a %s field cannot be sorted, searched or aggregated (filters may use it)", e.Name, f.Name, f.Type)
	}
	return nil
}

// checkEngineTypes refuses an array field on an engine with no arrays.
func checkEngineTypes(e *Entity, engine Engine) error {
	for _, f := range e.Fields {
		if f.Type == Array && engine != PostgreSQL {
			return fmt.Errorf("entity: %s.%s: arrays are PostgreSQL's; on %s serve the column as JSON", e.Name, f.Name, engine)
		}
	}
	return nil
}

// param is the SQL of a placeholder holding a value written to f's
// column: PostgreSQL reads JSON text as jsonb and an array literal as
// an array of the items' type, the column's own type then taking it by
// assignment.
func (t *table) param(f *Field, ph string) string {
	if t.d.engine() != PostgreSQL || !structured(f.Type) {
		return ph
	}
	return "CAST(CAST(" + ph + " AS text) AS " + pgStructuredType(f) + ")"
}

// pgStructuredType is the PostgreSQL type a JSON or array value is
// written as.
func pgStructuredType(f *Field) string {
	if f.Type == JSON {
		return "jsonb"
	}
	switch f.Items {
	case Integer:
		return "bigint[]"
	case Number:
		return "numeric[]"
	case Boolean:
		return "boolean[]"
	case UUID:
		return "uuid[]"
	}
	return "text[]"
}

// encodeJSON checks a JSON value of a call (decoded with UseNumber) or a
// hook and returns its JSON text.
func encodeJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, errors.New("must be a JSON value")
	}
	if err := checkJSON(b); err != nil {
		return nil, err
	}
	return string(b), nil
}

// checkJSON refuses JSON text the engines would not all keep as it is.
func checkJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return errors.New("must be a JSON value")
		}
		switch x := tok.(type) {
		case json.Delim:
			if x == '{' || x == '[' {
				if depth++; depth > MaxJSONDepth {
					return fmt.Errorf("nests deeper than %d levels", MaxJSONDepth)
				}
			} else {
				depth--
			}
		case string:
			if strings.IndexByte(x, 0) >= 0 {
				return errors.New("must not hold the NUL character (\\u0000), which PostgreSQL's jsonb cannot store")
			}
		case json.Number:
			if f, err := x.Float64(); err != nil || math.IsInf(f, 0) {
				return fmt.Errorf("holds the number %s, beyond what every engine keeps (about 1.8e308 in magnitude)", clip(x.String(), 40))
			}
		}
	}
}

// encodeArray checks an array value of a call or a hook against the
// items' type and returns its PostgreSQL array literal.
func encodeArray(f *Field, v any) (any, error) {
	items, ok := v.([]any)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil || json.Unmarshal(b, &items) != nil || items == nil {
			return nil, fmt.Errorf("must be an array of %s", itemsName(f.Items))
		}
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, item := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		if item == nil {
			b.WriteString("NULL")
			continue
		}
		err := checkSize(f.itemField(), item)
		var enc any
		if err == nil {
			enc, err = encode(PostgreSQL, f.Items, item)
		}
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		switch x := enc.(type) {
		case string:
			b.WriteByte('"')
			b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(x))
			b.WriteByte('"')
		default:
			fmt.Fprint(&b, x)
		}
	}
	b.WriteByte('}')
	return b.String(), nil
}

// itemsName is an array's items as a sentence names them.
func itemsName(t Type) string {
	switch t {
	case Integer:
		return "whole numbers"
	case Number:
		return "numbers"
	case Boolean:
		return "booleans"
	case UUID:
		return "UUIDs"
	}
	return "strings"
}

// appendJSON appends a JSON or array column's value as served: JSON text
// compacted, a number (SQLite's affinity made it one) as a number, and
// text that is not JSON as a string.
func appendJSON(b []byte, v any) []byte {
	switch x := v.(type) {
	case int64, float64:
		return appendNumber(b, x)
	case string:
		return appendJSONText(b, []byte(x))
	case []byte:
		return appendJSONText(b, x)
	case nil:
		return append(b, "null"...)
	case map[string]any, []any, bool, json.Number:
		// A driver that decodes JSON itself.
		if j, err := json.Marshal(x); err == nil {
			return append(b, j...)
		}
	}
	return appendString(b, textOf(v))
}

func appendJSONText(b, text []byte) []byte {
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, text); err == nil {
		return buf.Bytes()
	}
	return appendString(b, string(text))
}

// typeName is f's type as descriptions name it: "json", "array of text".
func typeName(f *Field) string {
	if f.Type == Array {
		return "array of " + f.Items.String()
	}
	return f.Type.String()
}

// structuredNote tells a filter's description what it may ask of the
// entity's JSON and array fields, or is empty.
func (t *table) structuredNote() string {
	var note string
	for _, f := range t.fidx {
		if f.Type == JSON {
			note += " A JSON field's member is named by path and compared with == or != (" + f.Name + `.color == "red", ` + f.Name + `["a-b"] != 1); ` + f.Name + " == null tests the whole."
			break
		}
	}
	for _, f := range t.fidx {
		if f.Type == Array {
			note += " Array membership: " + example(f.Items) + " in " + f.Name + "."
			break
		}
	}
	return note
}

// example is a literal of type it.
func example(it Type) string {
	switch it {
	case Integer:
		return "3"
	case Number:
		return "2.5"
	case Boolean:
		return "true"
	}
	return `"x"`
}

// itemField is an array field's items as a field of their own, with the
// sizes the array's column gives them (varchar(20)[], int4[]).
func (f *Field) itemField() *Field {
	c := *f
	c.Type, c.Items, c.Nullable = f.Items, 0, true
	return &c
}
