package reason

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// TestAllIsEveryConstant: All lists every Reason constant of the package
// once, and no two share a value: one word, one meaning.
func TestAllIsEveryConstant(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "reason.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := 0
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
			for _, s := range g.Specs {
				declared += len(s.(*ast.ValueSpec).Names)
			}
		}
	}
	seen := map[Reason]bool{}
	for _, r := range All() {
		if seen[r] {
			t.Errorf("%q twice in All", r)
		}
		seen[r] = true
	}
	if len(seen) != declared {
		t.Errorf("All has %d reasons, the package declares %d constants", len(seen), declared)
	}
}
