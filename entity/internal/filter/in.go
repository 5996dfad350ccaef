package filter

import (
	"fmt"
	"strings"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
)

// in writes field in [literal, ...]. CEL's in is equality with each item,
// so it is two-valued: a null field is in the list only if null is.
func (t *translator) in(x, a, b ast.Expr) error {
	if r, ok := t.arrayField(b); ok {
		return t.arrayIn(x, a, r)
	}
	if t.rootsInJSON(b) {
		return t.refuse(x, "in needs a literal list on its right, not "+describe(b),
			"membership is for array columns; compare a JSON member with == instead, such as attrs.color == \"red\"")
	}
	if jr, ok, err := t.jsonRef(a); ok || err != nil {
		if err != nil {
			return err
		}
		if b.Kind() != ast.ListKind {
			return t.refuse(x, "in needs a literal list on its right, not "+describe(b), `write attrs.status in ["new", "open"]`)
		}
		elems := b.AsList().Elements()
		switch {
		case len(elems) == 0:
			return t.refuse(x, "in has an empty list", "list at least one value")
		case len(elems) > t.env.limits.MaxListItems:
			return t.refuse(x, fmt.Sprintf("in has a list of %d items, more than %d", len(elems), t.env.limits.MaxListItems), "split the filter or narrow it")
		}
		if err := t.count(x); err != nil {
			return err
		}
		return t.jsonIn(x, jr, elems)
	}
	r, ok := t.field(a)
	if !ok {
		return t.refuse(x, "in needs a field on its left, not "+describe(a), `write status in ["new", "open"]`)
	}
	if b.Kind() != ast.ListKind {
		return t.refuse(x, "in needs a literal list on its right, not "+describe(b), `write status in ["new", "open"]`)
	}
	elems := b.AsList().Elements()
	switch {
	case len(elems) == 0:
		return t.refuse(x, "in has an empty list", "list at least one value")
	case len(elems) > t.env.limits.MaxListItems:
		return t.refuse(x, fmt.Sprintf("in has a list of %d items, more than %d", len(elems), t.env.limits.MaxListItems), "split the filter or narrow it")
	}
	if r.f.Type == Array {
		return t.refuse(x, r.f.Name+" is an array and cannot be in a list", fmt.Sprintf(`test membership with "x" in %s`, r.f.Name))
	}
	if err := t.count(x); err != nil {
		return err
	}
	ops, hasNull, err := t.items(r, elems)
	if err != nil {
		return err
	}
	t.emitIn(r, ops, hasNull && !r.lower) // lowerAscii() is never null
	return nil
}

// items reads the list's items as operands of r, leaving out those no
// value of the field can equal.
func (t *translator) items(r target, elems []ast.Expr) ([]operand, bool, error) {
	f := r.f
	ops := make([]operand, 0, len(elems))
	hasNull, asText := false, false
	for _, el := range elems {
		lit, err := t.literal(el)
		if err != nil {
			return nil, false, err
		}
		if lit.kind == litNull {
			hasNull = true
			continue
		}
		if !compatible(f.Type, lit.kind) {
			continue // CEL: a value of another type is never equal
		}
		o, err := t.operand(el, f, operators.Equals, lit)
		if err != nil {
			return nil, false, err
		}
		if o.constant {
			continue // only ever false for ==
		}
		asText = asText || o.asText
		ops = append(ops, o)
	}
	if asText { // one text item makes the whole list a text comparison
		for k := range ops {
			ops[k].t, ops[k].asText = Text, true
		}
	}
	return ops, hasNull, nil
}

// emitIn writes the SQL of an in test with its items.
func (t *translator) emitIn(r target, ops []operand, hasNull bool) {
	col := r.col
	if len(ops) == 0 {
		if hasNull {
			t.sql.WriteString(col + " IS NULL")
		} else {
			t.constant(r, operators.In, false)
		}
		return
	}
	var list strings.Builder
	var lhs string
	for k, o := range ops {
		l, rhs := t.sides(r, o)
		lhs = l
		if k > 0 {
			list.WriteString(", ")
		}
		list.WriteString(rhs)
	}
	switch {
	case hasNull:
		fmt.Fprintf(&t.sql, "(%s IS NULL OR %s IN (%s))", col, lhs, list.String())
	case r.nullEquals():
		fmt.Fprintf(&t.sql, "(%s IN (%s) AND %s IS NOT NULL)", lhs, list.String(), col)
	default:
		fmt.Fprintf(&t.sql, "%s IN (%s)", lhs, list.String())
	}
}

// compatible reports whether a literal of kind k can equal a value of
// type ft in CEL.
func compatible(ft Type, k litKind) bool {
	switch ft {
	case Text, UUID:
		return k == litString
	case Integer, Number:
		return isNumeric(k)
	case Boolean:
		return k == litBool
	}
	return k == litTime
}

// match writes field.contains(s), startsWith or endsWith.
func (t *translator) match(x ast.Expr, fn string, c ast.CallExpr) error {
	recv := c.Target()
	r, ok := t.field(recv)
	if !c.IsMemberFunction() || !ok || len(c.Args()) != 1 {
		return t.refuse(x, fn+"() needs a text field before it, not "+describe(recv), `write name.`+fn+`("x")`)
	}
	f := r.f
	if f.Type != Text && f.Type != UUID {
		return t.refuse(x, fmt.Sprintf("%s() needs a text field, and %s is %s", fn, f.Name, article(f.Type)), "")
	}
	s, ok := stringLiteral(c.Args()[0])
	if !ok {
		return t.refuse(x, fn+"() of "+describe(c.Args()[0])+" is not supported", fn+`() takes a quoted literal, such as name.`+fn+`("x")`)
	}
	if err := t.nulFree(x, s); err != nil {
		return err
	}
	if err := t.count(x); err != nil {
		return err
	}
	if s == "" { // every string has the empty string in it
		t.constant(r, fn, true)
		return nil
	}
	t.matchText(r, fn, s)
	return nil
}
