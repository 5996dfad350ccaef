package filter

import (
	"fmt"
	"math"
	"time"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
)

// maxExactInt is 2^53: every integer of smaller magnitude is a double.
const maxExactInt = 1 << 53

// operand is a literal made ready to compare with a field's column: the
// operator (adjusted where the literal had to be rounded), the value to
// bind and its type, or, when constant is set, the comparison's outcome
// for every row whose field is not null.
type operand struct {
	op       string
	v        any
	t        Type
	constant bool
	value    bool
	asText   bool // a UUID field compared as its text
}

// compare writes the comparison r op lit.
func (t *translator) compare(x ast.Expr, r target, op string, lit literal) error {
	if lit.kind == litNull {
		switch {
		case r.lower:
			return t.refuse(x, "lowerAscii() is never null", "test the field itself: x == null")
		case op == operators.Equals && r.f.NonFinite:
			fmt.Fprintf(&t.sql, "(%s IS NULL OR %s)", r.col, t.nonFinite(r.col))
		case op == operators.NotEquals && r.f.NonFinite:
			fmt.Fprintf(&t.sql, "(%s IS NOT NULL AND NOT %s)", r.col, t.nonFinite(r.col))
		case op == operators.Equals:
			t.sql.WriteString(r.col + " IS NULL")
		case op == operators.NotEquals:
			t.sql.WriteString(r.col + " IS NOT NULL")
		default:
			return t.refuse(x, opName(op)+" null orders nothing", "test for null with == null or != null")
		}
		return nil
	}
	o, err := t.operand(x, r.f, op, lit)
	if err != nil {
		return err
	}
	t.emit(r, o)
	return nil
}

// operand adjusts lit to the type of field f.
func (t *translator) operand(x ast.Expr, f Field, op string, lit literal) (operand, error) {
	o := operand{op: op, t: f.Type}
	switch {
	case f.Type == Text && lit.kind == litString:
		o.v = lit.s
	case f.Type == UUID && lit.kind == litString:
		o.v = lit.s
		if !isCanonicalUUID(lit.s) {
			o.t, o.asText = Text, true
		}
	case f.Type == Boolean && lit.kind == litBool:
		o.v = lit.b
	case f.Type == Timestamp && lit.kind == litTime:
		o.v = lit.t
	case f.Type == Date && lit.kind == litTime:
		dateOperand(&o, lit.t)
	case f.Type == Number && isNumeric(lit.kind):
		o.v = lit.float()
	case f.Type == Integer && isNumeric(lit.kind):
		if err := integerOperand(&o, lit); err != nil {
			return o, t.refuse(x, err.Error(), "compare an integer field with an integer")
		}
	default:
		return o, t.refuse(x, fmt.Sprintf("%s is %s and cannot be compared with %s", f.Name, article(f.Type), lit.describe()), "")
	}
	return o, nil
}

// emit writes the comparison of r with o.
func (t *translator) emit(r target, o operand) {
	if o.constant {
		t.constant(r, o.op, o.value)
		return
	}
	lhs, rhs := t.sides(r, o)
	switch {
	case o.op == operators.Equals && r.nullEquals():
		// CEL: null == v is false, so !(x == v) holds for a null x;
		// SQL's NULL would be dropped by NOT, so make it two-valued.
		fmt.Fprintf(&t.sql, "(%s = %s AND %s IS NOT NULL)", lhs, rhs, r.col)
	case o.op == operators.NotEquals && r.nullEquals():
		t.distinct(lhs, rhs)
	case r.f.NonFinite && o.op != operators.Equals && o.op != operators.NotEquals:
		t.finiteOrdering(lhs, sqlOperator(o.op), rhs, o.op == operators.Less || o.op == operators.LessEquals)
	default:
		fmt.Fprintf(&t.sql, "%s %s %s", lhs, sqlOperator(o.op), rhs)
	}
}

// constant writes the outcome of a comparison that is the same, value,
// for every row whose column is not null. Equality tests of a field are
// two-valued in CEL (a null equals nothing), and value is already right
// for a null; anything else of a null is an error in CEL, NULL in SQL.
func (t *translator) constant(r target, op string, value bool) {
	equality := op == operators.Equals || op == operators.NotEquals || op == operators.In
	if !r.f.Nullable || (equality && r.nullEquals()) {
		t.sql.WriteString(sqlBool(value))
		return
	}
	fmt.Fprintf(&t.sql, "CASE WHEN %s IS NULL THEN NULL ELSE %s END", r.col, sqlBool(value))
}

// dateOperand compares a date field with an instant: with its UTC
// midnight, or with the day it falls in when it is later in the day.
func dateOperand(o *operand, when time.Time) {
	day := time.Date(when.Year(), when.Month(), when.Day(), 0, 0, 0, 0, time.UTC)
	o.v = day
	if day.Equal(when) {
		return
	}
	switch o.op {
	case operators.Equals, operators.NotEquals:
		o.constant, o.value = true, o.op == operators.NotEquals
	case operators.Less, operators.LessEquals:
		o.op = operators.LessEquals
	case operators.Greater, operators.GreaterEquals:
		o.op = operators.Greater
	}
}

// integerOperand compares an integer field with a number as CEL does:
// an int with a uint exactly, an int with a double as doubles (exact
// below 2^53, the only doubles accepted).
func integerOperand(o *operand, lit literal) error {
	switch lit.kind {
	case litInt:
		o.v = lit.i
	case litUint:
		if lit.u <= math.MaxInt64 {
			o.v = int64(lit.u)
			return nil
		}
		// Every int64 is below the literal.
		o.constant = true
		o.value = o.op == operators.Less || o.op == operators.LessEquals || o.op == operators.NotEquals
	case litDouble:
		return doubleThreshold(o, lit.f)
	}
	return nil
}

// doubleThreshold turns int op d into an integer comparison.
func doubleThreshold(o *operand, d float64) error {
	if math.IsNaN(d) || math.Abs(d) >= maxExactInt {
		return fmt.Errorf("%v is too large to compare with an integer field exactly", d)
	}
	floor, ceil := int64(math.Floor(d)), int64(math.Ceil(d))
	switch o.op {
	case operators.Equals, operators.NotEquals:
		if floor != ceil {
			o.constant, o.value = true, o.op == operators.NotEquals
		}
		o.v = floor
	case operators.Less, operators.GreaterEquals:
		o.v = ceil
	case operators.LessEquals, operators.Greater:
		o.v = floor
	}
	return nil
}

func isNumeric(k litKind) bool { return k == litInt || k == litUint || k == litDouble }

// float is a numeric literal as CEL converts it to compare with a double.
func (l literal) float() float64 {
	switch l.kind {
	case litInt:
		return float64(l.i)
	case litUint:
		return float64(l.u)
	}
	return l.f
}

func (l literal) describe() string {
	switch l.kind {
	case litNull:
		return "null"
	case litBool:
		return "a boolean"
	case litInt, litUint:
		return "an integer"
	case litDouble:
		return "a number"
	case litString:
		return "text"
	}
	return "a timestamp"
}

// article is a field type as a sentence's complement: "an integer",
// "text", "a date".
func article(t Type) string {
	switch t {
	case Integer:
		return "an integer"
	case UUID:
		return "a uuid"
	case Text:
		return "text"
	case JSON:
		return "JSON"
	case Array:
		return "an array"
	}
	return "a " + t.String()
}

// sqlOperator is the SQL spelling of a comparison.
func sqlOperator(op string) string {
	switch op {
	case operators.Equals:
		return "="
	case operators.NotEquals:
		return "<>"
	case operators.Less:
		return "<"
	case operators.LessEquals:
		return "<="
	case operators.Greater:
		return ">"
	}
	return ">="
}

// isCanonicalUUID reports whether s is a UUID in lower-case 8-4-4-4-12
// form, the text every engine gives a UUID.
func isCanonicalUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
				return false
			}
		}
	}
	return true
}
