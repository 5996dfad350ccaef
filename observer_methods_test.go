package ferry

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"
)

// servedMethod keeps its own list of the methods dispatch serves (an
// observer's Unknown hangs on it): a method added to dispatch and not to
// the list would be reported to every observer as text the client chose,
// and one left in the list after dispatch dropped it would be named in
// spans and metrics. The two lists, read from the source, must be equal.
func TestServedMethodIsDispatchsList(t *testing.T) {
	dispatched := caseStrings(t, "dispatch.go", "dispatch")
	listed := caseStrings(t, "observer.go", "servedMethod")
	if !slices.Equal(dispatched, listed) {
		t.Errorf("Server.dispatch serves %q,\nservedMethod lists %q", dispatched, listed)
	}
	for _, m := range dispatched {
		if !servedMethod(m) {
			t.Errorf("servedMethod(%q) = false", m)
		}
	}
}

// caseStrings is the sorted string cases of the first switch in the
// function (or method) fn of the file name.
func caseStrings(t *testing.T, name, fn string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Name.Name == fn {
			ast.Inspect(d.Body, func(n ast.Node) bool {
				if sw, ok := n.(*ast.SwitchStmt); ok && out == nil {
					for _, c := range sw.Body.List {
						for _, e := range c.(*ast.CaseClause).List {
							if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
								s, _ := strconv.Unquote(lit.Value)
								out = append(out, s)
							}
						}
					}
					return false
				}
				return true
			})
		}
	}
	if len(out) == 0 {
		t.Fatalf("found no switch of strings in %s of %s: has it moved?", fn, name)
	}
	slices.Sort(out)
	return out
}
