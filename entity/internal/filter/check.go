package filter

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
)

// check parses and type-checks expr within the limits, and requires a
// condition.
func (e *Env) check(expr string) (*ast.AST, error) {
	switch {
	case len(expr) > e.limits.MaxLength:
		return nil, e.refusal(fmt.Sprintf("the filter is %d bytes long, more than %d", len(expr), e.limits.MaxLength), "shorten it", 0)
	case !utf8.ValidString(expr):
		return nil, e.refusal("the filter is not valid UTF-8", "", 0)
	case strings.TrimSpace(expr) == "":
		return nil, e.refusal("the filter is empty", "write a condition such as cost > 100", 0)
	}
	if a, ok := e.cache.get(expr); ok {
		return a, nil
	}
	if err := e.shape(expr); err != nil {
		return nil, err
	}
	checked, iss := e.cel.Compile(expr)
	if iss.Err() != nil {
		return nil, e.compileError(expr, iss.Errors())
	}
	out := checked.OutputType()
	if !out.IsExactType(types.BoolType) && !out.IsExactType(cel.NullableType(types.BoolType)) {
		return nil, e.refusal(fmt.Sprintf("the filter is %s, not a condition", celTypeName(out.String())),
			"compare a field with a literal, such as cost > 100", 1)
	}
	a := checked.NativeRep()
	e.cache.put(expr, a)
	return a, nil
}

// refusal returns an *Error with the environment's field list.
func (e *Env) refusal(problem, hint string, column int) *Error {
	return &Error{Problem: problem, Hint: hint, Column: column, Fields: e.fieldList}
}

// compileError turns cel-go's first issue into a refusal with hints.
func (e *Env) compileError(expr string, errs []*cel.Error) error {
	if len(errs) == 0 {
		return e.refusal("the filter does not compile", habits(expr), 0)
	}
	first := errs[0]
	col := position(expr, first.Location.Line(), first.Location.Column())
	msg := first.Message
	switch {
	case strings.HasPrefix(msg, "undeclared reference to '"):
		name, _, _ := strings.Cut(strings.TrimPrefix(msg, "undeclared reference to '"), "'")
		problem, hint := e.unknownName(name)
		return e.refusal(problem, joinHints(hint, habits(expr)), col)
	case strings.HasPrefix(msg, "found no matching overload for '"):
		problem, hint := overloadError(msg, e.callFields(expr, first.ExprID))
		return e.refusal(problem, joinHints(hint, habits(expr)), col)
	case strings.Contains(msg, "recursion"):
		return e.refusal(fmt.Sprintf("the filter nests deeper than %d levels", e.limits.MaxDepth), "", col)
	case strings.Contains(msg, "lookahead limit exceeded"):
		// cel-go gave up recovering and knows no position (column 0).
		return e.refusal("syntax error: the filter could not be read",
			joinHints("check that brackets and quotes pair up; the conditional operator (? :) is not supported", habits(expr)), 0)
	}
	msg = strings.TrimPrefix(msg, "Syntax error: ")
	if i := strings.Index(msg, " expecting {"); i >= 0 {
		msg = msg[:i]
	}
	return e.refusal(fmt.Sprintf("syntax error at column %d: %s", col, shorten(msg, 100)), habits(expr), col)
}

// unknownName explains a name the environment does not declare.
func (e *Env) unknownName(name string) (problem, hint string) {
	switch name {
	case "has":
		return "has() is not supported in filters", "test a field for null with x != null"
	case "exists", "all", "exists_one", "map", "filter":
		return "the macro " + name + "() is not supported in filters", "compare a field with a literal, or use in [...]"
	}
	for _, m := range []string{"contains", "startsWith", "endsWith"} {
		if strings.EqualFold(name, m) {
			return fmt.Sprintf("unknown function %q", name), "function names are case-sensitive: write " + m
		}
	}
	if l := strings.ToLower(name); strings.Contains(l, "lower") || strings.Contains(l, "upper") {
		return fmt.Sprintf("unknown function %s", excerpt(name)), `for case-insensitive matching write name.lowerAscii() == "apple" (it lowers A to Z only)`
	}
	if f, ok := e.nearest(name); ok {
		return fmt.Sprintf("unknown field %s", excerpt(name)), fmt.Sprintf("did you mean %q?", f)
	}
	return fmt.Sprintf("unknown field or function %s", excerpt(name)), ""
}

// nearest finds the field name closest to name: equal but for case, or
// within two edits.
func (e *Env) nearest(name string) (string, bool) {
	best, bestDist := "", 3
	lower := strings.ToLower(name)
	for _, f := range e.fields {
		if strings.EqualFold(f.Name, name) {
			return f.Name, true
		}
		if d := distance(strings.ToLower(f.Name), lower, bestDist); d < bestDist {
			best, bestDist = f.Name, d
		}
	}
	return best, best != ""
}

// callFields returns the fields the arguments of the call id of expr
// name, nil for an argument that is not a field (or for every argument,
// when expr does not parse or has no such call).
func (e *Env) callFields(expr string, id int64) []*Field {
	parsed, iss := e.cel.Parse(expr)
	if iss.Err() != nil {
		return nil
	}
	var out []*Field
	ast.PostOrderVisit(parsed.NativeRep().Expr(), ast.NewExprVisitor(func(x ast.Expr) {
		if x.ID() != id || x.Kind() != ast.CallKind {
			return
		}
		for _, a := range x.AsCall().Args() {
			var f *Field
			if a.Kind() == ast.IdentKind {
				if i, ok := e.index[a.AsIdent()]; ok {
					f = &e.fields[i]
				}
			}
			out = append(out, f)
		}
	}))
	return out
}

// overloadError explains a type mismatch of an operator or function,
// fields being the fields its arguments name (see callFields).
func overloadError(msg string, fields []*Field) (problem, hint string) {
	rest := strings.TrimPrefix(msg, "found no matching overload for '")
	fn, args, _ := strings.Cut(rest, "' applied to '")
	args = strings.TrimSuffix(args, "'")
	if target, _, ok := strings.Cut(args, ".("); ok {
		return fmt.Sprintf("%s() needs a text field, not %s", fn, celTypeName(target)), `write name.` + fn + `("x")`
	}
	switch fn {
	case operators.Index:
		return "indexing ([]) is not supported in filters", ""
	case operators.In:
		return "in needs a field on its left and a list of literals on its right", `write status in ["new", "open"]`
	}
	var names []string
	for a := range strings.SplitSeq(strings.Trim(args, "()"), ", ") {
		names = append(names, celTypeName(a))
	}
	if problem, hint, ok := fieldMismatch(names, fields); ok {
		return problem, hint
	}
	if len(names) == 2 && len(fields) == 2 && fields[0] != nil && fields[1] != nil {
		return fmt.Sprintf("%s cannot be applied to %s (%s) and %s (%s)", opName(fn), fields[0].Name, names[0], fields[1].Name, names[1]),
			"compare fields of the same type; an integer and a number compare with < <= > >= only"
	}
	problem = fmt.Sprintf("%s cannot be applied to %s", opName(fn), strings.Join(names, " and "))
	switch {
	case len(names) == 2 && names[1] == "null" && fn != operators.Equals && fn != operators.NotEquals:
		hint = "null can only be tested with == null or != null"
	case len(names) == 2 && names[1] == "null":
		hint = "only a field that may be null can be compared with null"
	case len(names) == 2 && names[1] == "unsigned integer":
		hint = "write the integer without its u suffix, such as 5"
	case len(names) == 2 && strings.HasPrefix(names[0], "number") && strings.HasPrefix(names[1], "integer"):
		hint = "write the integer with a decimal point, such as 100.0"
	case len(names) == 2 && strings.HasPrefix(names[0], "integer") && strings.HasPrefix(names[1], "number"):
		hint = "compare an integer field with a whole number, such as 100"
	case len(names) == 2 && strings.HasPrefix(names[1], "text"):
		hint = "only text is quoted: write numbers, true and false bare"
	case len(names) == 2 && strings.HasPrefix(names[0], "text"):
		hint = `text values are quoted, such as name == "5"`
	case len(names) == 2 && strings.HasPrefix(names[0], "timestamp"):
		hint = `write timestamps as timestamp("2024-05-01T10:00:00Z") and dates as date("2024-05-01")`
	}
	return problem, hint
}

// fieldMismatch explains a comparison of a field with a literal of
// another type in the field's own terms, as the field list writes its
// type (a date is a date here, not CEL's timestamp), with how to write a
// literal of that type. It leaves comparisons with null, which have
// their own hints, to overloadError.
func fieldMismatch(names []string, fields []*Field) (problem, hint string, ok bool) {
	if len(names) != 2 || len(fields) != 2 || (fields[0] == nil) == (fields[1] == nil) {
		return "", "", false
	}
	f, other := fields[0], names[1]
	if f == nil {
		f, other = fields[1], names[0]
	}
	if other == "null" || other == "unsigned integer" {
		return "", "", false
	}
	problem = fmt.Sprintf("%s is %s and cannot be compared with %s", f.Name, article(f.Type), withArticle(other))
	switch {
	case f.Type == Date:
		hint = `write a date as date("2024-05-01")`
	case f.Type == Timestamp:
		hint = `write a timestamp as timestamp("2024-05-01T10:00:00Z")`
	case f.Type == Text || f.Type == UUID:
		hint = `text values are quoted, such as ` + f.Name + ` == "5"`
	case other == "text":
		hint = "only text is quoted: write numbers, true and false bare"
	case f.Type == Number && other == "integer":
		hint = "write the integer with a decimal point, such as 100.0"
	case f.Type == Integer && other == "number":
		hint = "compare an integer field with a whole number, such as 100"
	}
	return problem, hint, true
}

// withArticle is a CEL type name, as celTypeName writes it, as the
// object of a sentence: "an integer", "text".
func withArticle(name string) string {
	switch name {
	case "integer":
		return "an integer"
	case "number", "boolean", "timestamp":
		return "a " + name
	}
	return name
}

// celTypeName is a CEL type name as the field list writes types.
func celTypeName(t string) string {
	if inner, ok := strings.CutPrefix(t, "wrapper("); ok {
		return celTypeName(strings.TrimSuffix(inner, ")")) + " or null"
	}
	switch t {
	case "int":
		return "integer"
	case "uint":
		return "unsigned integer"
	case "double":
		return "number"
	case "string":
		return "text"
	case "bool":
		return "boolean"
	case "null_type":
		return "null"
	case "google.protobuf.Timestamp", "timestamp":
		return "timestamp"
	}
	if strings.HasPrefix(t, "list(") {
		return "a list"
	}
	return shorten(t, 40)
}

// position is the 1-based character position of a line and 0-based
// column.
func position(expr string, line, col int) int {
	if line <= 0 {
		return 0
	}
	pos := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(expr, '\n')
		if i < 0 {
			break
		}
		pos += utf8.RuneCountInString(expr[:i+1])
		expr = expr[i+1:]
	}
	return pos + col + 1
}

// shorten cuts s to at most n characters.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

func joinHints(hints ...string) string {
	var kept []string
	for _, h := range hints {
		if h != "" {
			kept = append(kept, h)
		}
	}
	return strings.Join(kept, "; ")
}

// describe names the construct x for a refusal.
func describe(x ast.Expr) string {
	switch x.Kind() {
	case ast.CallKind:
		return describeCall(x.AsCall())
	case ast.IdentKind:
		return "the field " + x.AsIdent()
	case ast.LiteralKind:
		if s, ok := x.AsLiteral().(types.String); ok {
			return "the literal " + excerpt(string(s))
		}
		return "the literal " + shorten(fmt.Sprint(x.AsLiteral().Value()), 32)
	case ast.ListKind:
		return "a list"
	case ast.MapKind:
		return "a map"
	case ast.SelectKind:
		return "the selection ." + x.AsSelect().FieldName()
	case ast.ComprehensionKind:
		return "a macro"
	case ast.StructKind:
		return "a message"
	}
	return "an expression"
}

func describeCall(c ast.CallExpr) string {
	switch fn := c.FunctionName(); fn {
	case operators.Add, operators.Subtract, operators.Multiply, operators.Divide, operators.Modulo:
		return "arithmetic (" + opName(fn) + ")"
	case operators.Negate:
		return "negation (-)"
	case operators.Conditional:
		return "the conditional operator (? :)"
	case operators.Index:
		return "indexing ([])"
	case operators.LogicalAnd, operators.LogicalOr, operators.LogicalNot,
		operators.Equals, operators.NotEquals, operators.Less, operators.LessEquals,
		operators.Greater, operators.GreaterEquals, operators.In:
		return "a condition (" + opName(fn) + ")"
	default:
		if c.IsMemberFunction() {
			return "the method ." + fn + "()"
		}
		return "the function " + fn + "()"
	}
}

// hintFor suggests what to write instead of an unsupported construct.
func hintFor(x ast.Expr) string {
	if x.Kind() != ast.CallKind {
		return ""
	}
	switch x.AsCall().FunctionName() {
	case "matches":
		return "use contains, startsWith or endsWith"
	case "size":
		return "compare the field itself"
	case operators.Conditional:
		return "combine conditions with && and ||"
	case operators.Add, operators.Subtract, operators.Multiply, operators.Divide, operators.Modulo:
		return "compute the value and compare the field with it"
	}
	return "filters compare fields with literals, with && || ! in [...] and contains, startsWith, endsWith"
}
