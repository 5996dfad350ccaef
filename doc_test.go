package ferry

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// Every exported constant and variable of the package has a doc comment
// that go doc shows (a blank line between a comment and its declaration
// hides it).
func TestExportedValuesHaveDocComments(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	p := doc.New(pkgs["ferry"], "github.com/ferry-mcp/ferry", 0)
	values := append(p.Consts, p.Vars...)
	for _, typ := range p.Types {
		values = append(values, typ.Consts...)
		values = append(values, typ.Vars...)
	}
	for _, v := range values {
		if v.Doc != "" {
			continue
		}
		for _, spec := range v.Decl.Specs {
			vs := spec.(*ast.ValueSpec)
			if vs.Doc != nil || vs.Comment != nil || len(v.Decl.Specs) > 1 {
				continue // documented in its group
			}
			for _, n := range vs.Names {
				if n.IsExported() {
					t.Errorf("%s has no doc comment", n.Name)
				}
			}
		}
	}
}
