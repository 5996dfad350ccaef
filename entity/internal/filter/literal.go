package filter

import (
	"fmt"
	"strings"
	"time"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
)

// litKind is the kind of a literal's value.
type litKind uint8

const (
	litNull litKind = iota
	litBool
	litInt
	litUint
	litDouble
	litString
	litTime
)

// literal is a constant of the expression: a literal, or timestamp() or
// date() of a string literal.
type literal struct {
	kind litKind
	b    bool
	i    int64
	u    uint64
	f    float64
	s    string
	t    time.Time
}

// literal reads x as a constant, or refuses it.
func (t *translator) literal(x ast.Expr) (literal, error) {
	switch x.Kind() {
	case ast.LiteralKind:
		switch v := x.AsLiteral().(type) {
		case types.Null:
			return literal{kind: litNull}, nil
		case types.Bool:
			return literal{kind: litBool, b: bool(v)}, nil
		case types.Int:
			return literal{kind: litInt, i: int64(v)}, nil
		case types.Uint:
			return literal{kind: litUint, u: uint64(v)}, nil
		case types.Double:
			return literal{kind: litDouble, f: float64(v)}, nil
		case types.String:
			if err := t.nulFree(x, string(v)); err != nil {
				return literal{}, err
			}
			return literal{kind: litString, s: string(v)}, nil
		}
	case ast.CallKind:
		c := x.AsCall()
		fn := c.FunctionName()
		if (fn == "timestamp" || fn == "date") && !c.IsMemberFunction() && len(c.Args()) == 1 {
			return t.timeLiteral(x, fn, c.Args()[0])
		}
		if fn == "lowerAscii" {
			return literal{}, t.refuse(x, "lowerAscii() applies only to a text field", `write name.lowerAscii() == "apple"`)
		}
		return literal{}, t.refuse(x, describe(x)+" is not supported in filters", hintFor(x))
	}
	return literal{}, t.refuse(x, describe(x)+" is not a literal", "compare a field with a literal value, such as cost > 100")
}

// nulFree refuses a text literal x holding NUL: PostgreSQL text cannot
// hold it, and binding it is an SQL error there, so every engine refuses
// it alike.
func (t *translator) nulFree(x ast.Expr, s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return t.refuse(x, "text literals cannot hold the NUL character (\\x00)", "")
	}
	return nil
}

// timeLiteral reads timestamp("RFC 3339") or date("YYYY-MM-DD").
func (t *translator) timeLiteral(x ast.Expr, fn string, arg ast.Expr) (literal, error) {
	s, ok := stringLiteral(arg)
	if !ok {
		return literal{}, t.refuse(x, fn+"() of "+describe(arg)+" is not supported", fn+"() takes a quoted literal, such as "+example(fn))
	}
	var when time.Time
	if fn == "date" {
		d, err := parseDate(s)
		if err != nil {
			return literal{}, t.refuse(arg, fmt.Sprintf("%s is not a date", excerpt(s)), "write date(\"2024-05-01\")")
		}
		when = d
	} else {
		v := types.String(s).ConvertToType(types.TimestampType)
		ts, ok := v.(types.Timestamp)
		if !ok {
			return literal{}, t.refuse(arg, fmt.Sprintf("%s is not an RFC 3339 timestamp", excerpt(s)), "write timestamp(\"2024-05-01T10:00:00Z\")")
		}
		when = ts.UTC()
	}
	if when.Nanosecond()%1000 != 0 {
		return literal{}, t.refuse(arg, "timestamps are precise to the microsecond", "drop the digits after the sixth decimal")
	}
	return literal{kind: litTime, t: when}, nil
}

func example(fn string) string {
	if fn == "date" {
		return `date("2024-05-01")`
	}
	return `timestamp("2024-05-01T10:00:00Z")`
}

// stringLiteral returns x's value if it is a string literal.
func stringLiteral(x ast.Expr) (string, bool) {
	if x.Kind() != ast.LiteralKind {
		return "", false
	}
	s, ok := x.AsLiteral().(types.String)
	return string(s), ok
}

// excerpt quotes s, shortened to a few dozen characters.
func excerpt(s string) string {
	const max = 32
	r := []rune(s)
	if len(r) > max {
		return fmt.Sprintf("%q…", string(r[:max]))
	}
	return fmt.Sprintf("%q", s)
}
