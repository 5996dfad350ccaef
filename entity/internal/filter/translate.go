package filter

import (
	"fmt"
	"strings"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
)

// Translate checks expr against the environment's fields and returns an
// SQL boolean condition for engine that keeps exactly the rows for which
// CEL evaluates expr to true (see the package documentation for NULLs).
//
// column(i) returns the quoted, qualified column of the environment's
// field i: the caller's own model, so nothing of the expression's text
// reaches the SQL. bind(v, t) appends a parameter and returns its
// placeholder; v is a string, int64, float64, bool or time.Time (in UTC:
// a Timestamp, or a Date at midnight), and t is the type to encode it as
// (t is Integer for the lengths some string matches bind, and Text for a
// string compared with a UUID field as text). A refusal is an [*Error].
func (e *Env) Translate(expr string, engine Engine, column func(i int) string, bind func(v any, t Type) string) (string, error) {
	switch engine {
	case SQLite, PostgreSQL, MySQL:
	default:
		return "", fmt.Errorf("filter: unknown engine %q", engine)
	}
	checked, err := e.check(expr)
	if err != nil {
		return "", err
	}
	t := &translator{env: e, engine: engine, column: column, bind: bind, info: checked.SourceInfo()}
	if err := t.condition(checked.Expr()); err != nil {
		return "", err
	}
	return t.sql.String(), nil
}

// translator writes the SQL of one expression.
type translator struct {
	env         *Env
	engine      Engine
	column      func(i int) string
	bind        func(v any, t Type) string
	info        *ast.SourceInfo
	sql         strings.Builder
	comparisons int
}

// condition writes the SQL of a boolean expression. Its nesting is
// bounded before parsing (see shape) and by the parser's recursion limit.
func (t *translator) condition(x ast.Expr) error {
	switch x.Kind() {
	case ast.LiteralKind:
		if b, ok := x.AsLiteral().Value().(bool); ok {
			t.sql.WriteString(sqlBool(b))
			return nil
		}
	case ast.IdentKind:
		if r, ok := t.field(x); ok && r.f.Type == Boolean {
			return t.boolField(x, r)
		}
	case ast.CallKind:
		return t.call(x)
	}
	return t.refuse(x, describe(x)+" is not a condition", "compare a field with a literal, such as cost > 100")
}

// call writes the SQL of an operator or function call.
func (t *translator) call(x ast.Expr) error {
	c := x.AsCall()
	switch fn := c.FunctionName(); fn {
	case operators.LogicalAnd, operators.LogicalOr:
		return t.logical(c, fn)
	case operators.LogicalNot:
		t.sql.WriteString("NOT ")
		return t.parenthesized(c.Args()[0])
	case operators.Equals, operators.NotEquals, operators.Less, operators.LessEquals,
		operators.Greater, operators.GreaterEquals:
		return t.comparison(x, fn, c.Args()[0], c.Args()[1])
	case operators.In:
		return t.in(x, c.Args()[0], c.Args()[1])
	case "contains", "startsWith", "endsWith":
		return t.match(x, fn, c)
	}
	return t.refuse(x, describe(x)+" is not supported in filters", hintFor(x))
}

// logical writes a && or || chain.
func (t *translator) logical(c ast.CallExpr, fn string) error {
	sep := " AND "
	if fn == operators.LogicalOr {
		sep = " OR "
	}
	for k, arg := range c.Args() {
		if k > 0 {
			t.sql.WriteString(sep)
		}
		var err error
		if arg.Kind() == ast.CallKind && arg.AsCall().FunctionName() == fn {
			// a && b && c needs no parentheses around a && b.
			err = t.logical(arg.AsCall(), fn)
		} else {
			err = t.parenthesized(arg)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *translator) parenthesized(x ast.Expr) error {
	t.sql.WriteByte('(')
	if err := t.condition(x); err != nil {
		return err
	}
	t.sql.WriteByte(')')
	return nil
}

// count counts one more comparison against the limit.
func (t *translator) count(x ast.Expr) error {
	t.comparisons++
	if t.comparisons > t.env.limits.MaxComparisons {
		return t.refuse(x, fmt.Sprintf("the expression makes more than %d comparisons", t.env.limits.MaxComparisons),
			"use in [...] for a list of values")
	}
	return nil
}

// comparison writes a comparison of a field with a literal, the field on
// either side, or of two fields.
func (t *translator) comparison(x ast.Expr, op string, a, b ast.Expr) error {
	if done, err := t.special(x, op, a, b); done {
		return err
	}
	r, fieldLeft := t.field(a)
	r2, fieldRight := t.field(b)
	switch {
	case fieldLeft && fieldRight:
		return t.compareFields(x, op, r, r2)
	case fieldRight:
		r, b, op = r2, a, mirror(op)
	case !fieldLeft && a.Kind() == ast.CallKind:
		_, err := t.literal(a)
		if err != nil {
			return err
		}
		fallthrough
	case !fieldLeft:
		return t.refuse(x, fmt.Sprintf("%s has no field on either side (%s, %s)", opName(op), describe(a), describe(b)),
			"compare a field with a literal, such as cost > 100")
	}
	lit, err := t.literal(b)
	if err != nil {
		return err
	}
	if err := t.count(x); err != nil {
		return err
	}
	return t.compare(x, r, op, lit)
}

// target is a field as an expression uses it: itself, or its lowerAscii().
type target struct {
	i     int
	f     Field
	col   string // the column, from the caller
	lower bool   // field.lowerAscii()
}

// nullEquals reports whether a null makes an equality test false (CEL's
// null == v) rather than an error (null.lowerAscii() == v).
func (r target) nullEquals() bool { return r.f.Nullable && !r.lower }

// field reports whether x is a field or a text field's lowerAscii(), and
// which.
func (t *translator) field(x ast.Expr) (target, bool) {
	lower := false
	if x.Kind() == ast.CallKind {
		c := x.AsCall()
		if c.FunctionName() != "lowerAscii" || !c.IsMemberFunction() || len(c.Args()) != 0 {
			return target{}, false
		}
		x, lower = c.Target(), true
	}
	if x.Kind() != ast.IdentKind {
		return target{}, false
	}
	i, ok := t.env.index[x.AsIdent()]
	if !ok || (lower && t.env.fields[i].Type != Text) {
		return target{}, false
	}
	return target{i: i, f: t.env.fields[i], col: t.column(i), lower: lower}, true
}

// name is how the expression writes r.
func (r target) name() string {
	if r.lower {
		return r.f.Name + ".lowerAscii()"
	}
	return r.f.Name
}

// refuse returns the refusal of x.
func (t *translator) refuse(x ast.Expr, problem, hint string) error {
	col := 0
	if o, ok := t.info.GetOffsetRange(x.ID()); ok {
		col = int(o.Start) + 1
	}
	return &Error{Problem: problem, Hint: hint, Column: col, Fields: t.env.fieldList}
}

// mirror is the operator that means the same with its sides swapped.
func mirror(op string) string {
	switch op {
	case operators.Less:
		return operators.Greater
	case operators.LessEquals:
		return operators.GreaterEquals
	case operators.Greater:
		return operators.Less
	case operators.GreaterEquals:
		return operators.LessEquals
	}
	return op
}

// opName is the operator as the expression writes it.
func opName(op string) string {
	if name, ok := operators.FindReverse(op); ok {
		return name
	}
	return op
}

func sqlBool(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

// boolField writes a boolean field used as a condition. Unlike x == true
// it is three-valued: CEL's x, or !x, is an error (NULL) for a null x.
func (t *translator) boolField(x ast.Expr, r target) error {
	if err := t.count(x); err != nil {
		return err
	}
	lhs, rhs := t.sides(r, operand{op: operators.Equals, v: true, t: Boolean})
	t.sql.WriteString(lhs + " = " + rhs)
	return nil
}
