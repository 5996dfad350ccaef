package ferry

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// Every code Ferry declares has a name: Code.String must not print
// "code -32003" for a code of its own (as it once did for
// CodeInsufficientScope, declared apart from the others).
func TestEveryCodeHasAName(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "code.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
				continue
			}
			for _, name := range vs.Names {
				declared++
				if _, ok := codeNames[codeByName(t, name.Name)]; !ok {
					t.Errorf("%s has no name in codeNames", name.Name)
				}
			}
		}
	}
	if declared != len(codeNames) || declared < 11 {
		t.Errorf("code.go declares %d codes, codeNames names %d", declared, len(codeNames))
	}
	if got := Code(-1).String(); got != "code -1" {
		t.Errorf("an unnamed code prints %q", got)
	}
	if got := CodeInsufficientScope.String(); strings.HasPrefix(got, "code ") {
		t.Errorf("CodeInsufficientScope prints %q", got)
	}
}

// codeByName returns the value of the Code constant name.
func codeByName(t *testing.T, name string) Code {
	codes := map[string]Code{
		"CodeParseError": CodeParseError, "CodeInvalidRequest": CodeInvalidRequest, "CodeMethodNotFound": CodeMethodNotFound,
		"CodeInvalidParams": CodeInvalidParams, "CodeInternalError": CodeInternalError, "CodeResourceNotFound": CodeResourceNotFound,
		"CodeInsufficientScope": CodeInsufficientScope, "CodeHeaderMismatch": CodeHeaderMismatch,
		"CodeMissingClientCapability": CodeMissingClientCapability, "CodeUnsupportedProtocolVersion": CodeUnsupportedProtocolVersion,
		"CodeURLElicitationRequired": CodeURLElicitationRequired,
	}
	c, ok := codes[name]
	if !ok {
		t.Fatalf("code %s is new: add it to codeByName and codeNames", name)
	}
	return c
}
