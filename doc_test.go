package ferry

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// Every exported constant and variable of the package has a doc comment
// that go doc shows (a blank line between a comment and its declaration
// hides it).
func TestExportedValuesHaveDocComments(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/ferry-mcp/ferry")
	if err != nil {
		t.Fatal(err)
	}
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
