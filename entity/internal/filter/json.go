package filter

import (
	"fmt"
	"strconv"
	"strings"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
)

// This file translates what a filter may ask of a JSON field and of an
// array field, with CEL's meaning for the value a record shows:
//
//   - A JSON field is dyn in CEL. A member named by path (attrs.color,
//     attrs["first-name"].size) compares with a literal by == and !=,
//     or is in a list of literals. CEL's equality across types is false
//     (attrs.n == "5" for a number n), and selecting a member that is
//     not there, or in a value that is not an object, is an error: the
//     comparison is then NULL, on either side of a !, as for every other
//     error. Numbers compare as numbers (5 equals 5.0), text by code
//     point, true and false only with booleans, null only with a JSON
//     null.
//   - The whole JSON field compares with null only: attrs == null holds
//     for a NULL column and for a JSON null.
//   - An array field (PostgreSQL) is a list in CEL: "x" in tags holds
//     when an element equals the literal, and is NULL for a NULL array;
//     tags == null tests the column.
//
// Keys of a path are bound as parameters, never written into the SQL. A
// key made of digits is refused: PostgreSQL would read it as an index
// into an array, where CEL's selection fails. So are keys holding a
// quote, a backslash or a control character, which the engines' path
// languages spell differently.

// MaxJSONPath is the most keys a JSON member's path may have.
const MaxJSONPath = 8

// maxJSONKey is the longest key, in bytes, of a JSON member's path.
const maxJSONKey = 128

// jsonRef is a JSON field, or a member of one, as an expression names it.
type jsonRef struct {
	target
	path []string
}

// name is how the expression writes r.
func (r jsonRef) name() string {
	var b strings.Builder
	b.WriteString(r.f.Name)
	for _, k := range r.path {
		if isIdentifier(k) {
			b.WriteString("." + k)
		} else {
			b.WriteString("[" + strconv.Quote(k) + "]")
		}
	}
	return b.String()
}

// jsonRef reports whether x is a JSON field or a member of one, and which.
func (t *translator) jsonRef(x ast.Expr) (jsonRef, bool, error) {
	var keys []string
	start := x
	for {
		switch x.Kind() {
		case ast.SelectKind:
			s := x.AsSelect()
			if s.IsTestOnly() {
				return jsonRef{}, false, nil
			}
			keys = append(keys, s.FieldName())
			x = s.Operand()
			continue
		case ast.CallKind:
			c := x.AsCall()
			if c.FunctionName() != operators.Index || len(c.Args()) != 2 {
				return jsonRef{}, false, nil
			}
			k, ok := stringLiteral(c.Args()[1])
			if !ok {
				if !t.rootsInJSON(c.Args()[0]) {
					return jsonRef{}, false, nil
				}
				return jsonRef{}, true, t.refuse(x, "a JSON member is named by a quoted key, not "+describe(c.Args()[1]),
					`write attrs.color or attrs["first-name"]`)
			}
			keys = append(keys, k)
			x = c.Args()[0]
			continue
		case ast.IdentKind:
		default:
			return jsonRef{}, false, nil
		}
		break
	}
	i, ok := t.env.index[x.AsIdent()]
	if !ok || t.env.fields[i].Type != JSON {
		return jsonRef{}, false, nil
	}
	r := jsonRef{target: target{i: i, f: t.env.fields[i], col: t.column(i)}}
	for k := len(keys) - 1; k >= 0; k-- {
		r.path = append(r.path, keys[k])
	}
	if len(r.path) > MaxJSONPath {
		return r, true, t.refuse(start, fmt.Sprintf("the path of %s has %d keys, more than %d", r.f.Name, len(r.path), MaxJSONPath), "")
	}
	for _, k := range r.path {
		if problem := badKey(k); problem != "" {
			return r, true, t.refuse(start, fmt.Sprintf("the key %s of %s %s", excerpt(k), r.f.Name, problem),
				"filters name JSON members by keys of letters, digits and punctuation other than quotes and backslashes")
		}
	}
	return r, true, nil
}

// rootsInJSON reports whether x is a JSON field or a member of one.
func (t *translator) rootsInJSON(x ast.Expr) bool {
	for {
		switch x.Kind() {
		case ast.SelectKind:
			x = x.AsSelect().Operand()
			continue
		case ast.CallKind:
			c := x.AsCall()
			if c.FunctionName() != operators.Index || len(c.Args()) != 2 {
				return false
			}
			x = c.Args()[0]
			continue
		case ast.IdentKind:
			i, ok := t.env.index[x.AsIdent()]
			return ok && t.env.fields[i].Type == JSON
		}
		return false
	}
}

// badKey says what is wrong with a key of a JSON path, or "".
func badKey(k string) string {
	switch {
	case k == "":
		return "is empty"
	case len(k) > maxJSONKey:
		return fmt.Sprintf("is longer than %d bytes", maxJSONKey)
	case strings.ContainsAny(k, "\"\\"):
		return "holds a quote or a backslash"
	case strings.ContainsFunc(k, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "holds a control character"
	}
	if _, err := strconv.ParseInt(k, 10, 64); err == nil {
		return "is a number, which would index an array"
	}
	return ""
}

// arrayField reports whether x is an array field, and which.
func (t *translator) arrayField(x ast.Expr) (target, bool) {
	if x.Kind() != ast.IdentKind {
		return target{}, false
	}
	i, ok := t.env.index[x.AsIdent()]
	if !ok || t.env.fields[i].Type != Array {
		return target{}, false
	}
	return target{i: i, f: t.env.fields[i], col: t.column(i)}, true
}

// special writes a comparison in which a JSON value or an array field
// takes part, and reports whether there was one.
func (t *translator) special(x ast.Expr, op string, a, b ast.Expr) (bool, error) {
	ja, jsonA, err := t.jsonRef(a)
	if err != nil {
		return true, err
	}
	jb, jsonB, err := t.jsonRef(b)
	if err != nil {
		return true, err
	}
	ra, arrA := t.arrayField(a)
	rb, arrB := t.arrayField(b)
	if !jsonA && !jsonB && !arrA && !arrB {
		return false, nil
	}
	side, other := a, b
	if !jsonA && !arrA {
		side, other, ja, ra, jsonA, arrA = b, a, jb, rb, jsonB, arrB
	}
	lit, err := t.literal(other)
	if err != nil {
		what := describe(side)
		if jsonA {
			what = ja.name()
		} else if arrA {
			what = ra.f.Name
		}
		return true, t.refuse(x, fmt.Sprintf("%s compares %s with %s", opName(op), what, describe(other)),
			"a JSON member or an array compares with a literal only, such as attrs.color == \"red\"")
	}
	if err := t.count(x); err != nil {
		return true, err
	}
	if arrA {
		return true, t.compareArray(x, op, ra, lit)
	}
	return true, t.compareJSON(x, op, ja, lit)
}

// compareArray writes tags == null or tags != null.
func (t *translator) compareArray(x ast.Expr, op string, r target, lit literal) error {
	if lit.kind != litNull || (op != operators.Equals && op != operators.NotEquals) {
		return t.refuse(x, fmt.Sprintf("%s is an array: %s %s is not supported", r.f.Name, opName(op), lit.describe()),
			fmt.Sprintf(`test membership with "x" in %s, or %s == null`, r.f.Name, r.f.Name))
	}
	if op == operators.Equals {
		t.sql.WriteString(r.col + " IS NULL")
	} else {
		t.sql.WriteString(r.col + " IS NOT NULL")
	}
	return nil
}

// compareJSON writes r op lit for a JSON field or member.
func (t *translator) compareJSON(x ast.Expr, op string, r jsonRef, lit literal) error {
	if op != operators.Equals && op != operators.NotEquals {
		return t.refuse(x, fmt.Sprintf("%s is JSON: %s is not supported on it", r.name(), opName(op)),
			"compare a JSON member with == or != only, such as attrs.color == \"red\"")
	}
	if len(r.path) == 0 {
		if lit.kind != litNull {
			return t.refuse(x, fmt.Sprintf("%s is JSON and compares with null only, not %s", r.f.Name, lit.describe()),
				fmt.Sprintf(`compare one of its members: %s.color == "red"`, r.f.Name))
		}
		if op == operators.NotEquals {
			t.sql.WriteString("NOT ")
		}
		t.jsonNull(r.col)
		return nil
	}
	switch lit.kind {
	case litNull, litBool, litString, litInt, litUint, litDouble:
	default:
		return t.refuse(x, fmt.Sprintf("%s is JSON and cannot be compared with %s", r.name(), lit.describe()),
			"compare a JSON member with text, a number, true, false or null")
	}
	if op == operators.NotEquals {
		t.sql.WriteString("NOT ")
	}
	t.jsonEquals(r, lit)
	return nil
}

// jsonIn writes member in [literal, ...]: true when the member equals
// one of them, NULL when it is not there.
func (t *translator) jsonIn(x ast.Expr, r jsonRef, elems []ast.Expr) error {
	if len(r.path) == 0 {
		return t.refuse(x, r.f.Name+" is JSON: in is not supported on it", fmt.Sprintf(`test one of its members: %s.status in ["new", "open"]`, r.f.Name))
	}
	lits := make([]literal, 0, len(elems))
	for _, el := range elems {
		lit, err := t.literal(el)
		if err != nil {
			return err
		}
		switch lit.kind {
		case litNull, litBool, litString, litInt, litUint, litDouble:
		default:
			return t.refuse(el, fmt.Sprintf("%s is JSON and cannot be compared with %s", r.name(), lit.describe()), "")
		}
		lits = append(lits, lit)
	}
	t.sql.WriteByte('(')
	for i, lit := range lits {
		if i > 0 {
			t.sql.WriteString(" OR ")
		}
		t.jsonEquals(r, lit)
	}
	t.sql.WriteByte(')')
	return nil
}

// arrayIn writes literal in tags (PostgreSQL): the array contains an
// element equal to the literal, compared as the elements' type.
func (t *translator) arrayIn(x, a ast.Expr, r target) error {
	if t.engine != PostgreSQL {
		return t.refuse(x, r.f.Name+" is an array, which only PostgreSQL holds", "")
	}
	lit, err := t.literal(a)
	if err != nil {
		return t.refuse(x, fmt.Sprintf("in %s needs a literal on its left, not %s", r.f.Name, describe(a)), fmt.Sprintf(`write "x" in %s`, r.f.Name))
	}
	if err := t.count(x); err != nil {
		return err
	}
	var v any
	var sqlType string
	bt := r.f.Items
	switch {
	case (r.f.Items == Text || r.f.Items == UUID) && lit.kind == litString:
		v, sqlType, bt = lit.s, "text", Text
	case r.f.Items == Integer && (lit.kind == litInt || lit.kind == litUint):
		if lit.kind == litUint && lit.u > 1<<63-1 {
			t.constant(r, operators.In, false)
			return nil
		}
		v, sqlType = lit.i, "bigint"
		if lit.kind == litUint {
			v = int64(lit.u)
		}
	case r.f.Items == Number && isNumeric(lit.kind):
		v, sqlType = lit.float(), "double precision"
	case r.f.Items == Boolean && lit.kind == litBool:
		v, sqlType = lit.b, "boolean"
	case lit.kind == litNull:
		// A list of one type holds no null for CEL.
		t.constant(r, operators.In, false)
		return nil
	default:
		return t.refuse(x, fmt.Sprintf("%s holds %s, not %s", r.f.Name, r.f.Items, lit.describe()), "")
	}
	fmt.Fprintf(&t.sql, "CAST(%s AS %s[]) @> ARRAY[CAST(%s AS %s)]", r.col, sqlType, t.bind(v, bt), sqlType)
	return nil
}

// jsonNull writes the condition that col, a JSON column, is NULL or a
// JSON null.
func (t *translator) jsonNull(col string) {
	switch t.engine {
	case SQLite:
		fmt.Fprintf(&t.sql, "(%s IS NULL OR CASE WHEN json_valid(%s) THEN json_type(%s) = 'null' ELSE FALSE END)", col, col, col)
	case MySQL:
		fmt.Fprintf(&t.sql, "(%s IS NULL OR COALESCE(JSON_TYPE(%s) = 'NULL', FALSE))", col, col)
	default:
		fmt.Fprintf(&t.sql, "(%s IS NULL OR jsonb_typeof(CAST(%s AS jsonb)) = 'null')", col, col)
	}
}

// jsonEquals writes the member r equals lit: NULL when the member is not
// there, else whether it holds a value of lit's kind equal to lit.
func (t *translator) jsonEquals(r jsonRef, lit literal) {
	t.sql.WriteString("(CASE WHEN ")
	t.jsonType(r)
	t.sql.WriteString(" IS NULL THEN NULL WHEN ")
	switch lit.kind {
	case litNull:
		t.jsonType(r)
		t.sql.WriteString(" = " + t.kindName(lit.kind, false) + " THEN TRUE")
	case litBool:
		t.jsonType(r)
		if t.engine == SQLite {
			// SQLite's json_type tells true from false.
			t.sql.WriteString(" IN ('true', 'false') THEN ")
			t.jsonType(r)
			t.sql.WriteString(" = '" + strconv.FormatBool(lit.b) + "'")
		} else {
			t.sql.WriteString(" = " + t.kindName(lit.kind, false) + " THEN ")
			t.jsonValueText(r)
			t.sql.WriteString(" = '" + strconv.FormatBool(lit.b) + "'")
		}
	case litString:
		t.jsonType(r)
		t.sql.WriteString(" = " + t.kindName(lit.kind, false) + " THEN ")
		t.jsonText(r, lit.s)
	default:
		t.jsonType(r)
		t.sql.WriteString(" IN (" + t.kindName(lit.kind, true) + ") THEN ")
		t.jsonNumber(r, lit.float())
	}
	t.sql.WriteString(" ELSE FALSE END)")
}

// kindName is the engine's name of a JSON value's kind, quoted, as
// jsonType gives it (all of a number's names, if all).
func (t *translator) kindName(k litKind, all bool) string {
	switch t.engine {
	case SQLite:
		switch k {
		case litNull:
			return "'null'"
		case litString:
			return "'text'"
		}
		return "'integer', 'real'"
	case MySQL:
		switch k {
		case litNull:
			return "'NULL'"
		case litBool:
			return "'BOOLEAN'"
		case litString:
			return "'STRING'"
		}
		return "'INTEGER', 'DOUBLE', 'DECIMAL', 'UNSIGNED INTEGER'"
	}
	switch k {
	case litNull:
		return "'null'"
	case litBool:
		return "'boolean'"
	case litString:
		return "'string'"
	}
	return "'number'"
}

// jsonPath binds r's path as one JSON path text ($."a"."b"), for SQLite
// and MySQL.
func (t *translator) jsonPath(r jsonRef) string {
	var b strings.Builder
	b.WriteString("$")
	for _, k := range r.path {
		b.WriteString(`."` + k + `"`)
	}
	return t.bind(b.String(), Text)
}

// pgMember is PostgreSQL's jsonb of r, its keys bound one by one.
func (t *translator) pgMember(r jsonRef, fn string) string {
	var b strings.Builder
	b.WriteString(fn + "(CAST(" + r.col + " AS jsonb)")
	for _, k := range r.path {
		b.WriteString(", CAST(" + t.bind(k, Text) + " AS text)")
	}
	b.WriteString(")")
	return b.String()
}

// jsonType writes the kind of r's value, NULL when it is not there (or,
// on SQLite, when the column holds no valid JSON).
func (t *translator) jsonType(r jsonRef) {
	switch t.engine {
	case SQLite:
		fmt.Fprintf(&t.sql, "(CASE WHEN json_valid(%s) THEN json_type(%s, %s) END)", r.col, r.col, t.jsonPath(r))
	case MySQL:
		fmt.Fprintf(&t.sql, "JSON_TYPE(JSON_EXTRACT(%s, %s))", r.col, t.jsonPath(r))
	default:
		t.sql.WriteString("jsonb_typeof(" + t.pgMember(r, "jsonb_extract_path") + ")")
	}
}

// jsonValueText writes the text of r's value, a scalar, unquoted.
func (t *translator) jsonValueText(r jsonRef) {
	switch t.engine {
	case SQLite:
		fmt.Fprintf(&t.sql, "json_extract(%s, %s)", r.col, t.jsonPath(r))
	case MySQL:
		fmt.Fprintf(&t.sql, "JSON_UNQUOTE(JSON_EXTRACT(%s, %s))", r.col, t.jsonPath(r))
	default:
		t.sql.WriteString(t.pgMember(r, "jsonb_extract_path_text"))
	}
}

// jsonText writes r's value, a string, equals s, by code point.
func (t *translator) jsonText(r jsonRef, s string) {
	switch t.engine {
	case SQLite:
		t.jsonValueText(r)
		t.sql.WriteString(" = " + t.bind(s, Text) + " COLLATE BINARY")
	case MySQL:
		t.sql.WriteString("CAST(CONVERT(")
		t.jsonValueText(r)
		t.sql.WriteString(" USING utf8mb4) AS BINARY) = CAST(" + t.bind(s, Text) + " AS BINARY)")
	default:
		t.jsonValueText(r)
		t.sql.WriteString(` COLLATE "C" = ` + t.bind(s, Text))
	}
}

// jsonNumber writes r's value, a number, equals f. PostgreSQL compares
// as numeric, which holds every JSON number jsonb does.
func (t *translator) jsonNumber(r jsonRef, f float64) {
	switch t.engine {
	case SQLite:
		t.jsonValueText(r)
		t.sql.WriteString(" = " + t.bind(f, Number))
	case MySQL:
		t.sql.WriteString("CAST(")
		t.jsonValueText(r)
		t.sql.WriteString(" AS DOUBLE) = CAST(" + t.bind(f, Number) + " AS DOUBLE)")
	default:
		t.sql.WriteString("CAST(" + t.pgMember(r, "jsonb_extract_path") + " AS numeric) = CAST(" + t.bind(f, Number) + " AS numeric)")
	}
}
