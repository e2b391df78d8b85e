package verify

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify/canon"
)

// TestNoExportedVariables: the library, and the analytics, queries and
// schemas packages beside it, export no variable but error sentinels
// (Err...). A caller that reassigns or sorts an exported table
// changes what every verification reads (a sorted axis list once made an
// expiry FAIL read as PASS); tables are functions returning copies or
// immutable handles.
func TestNoExportedVariables(t *testing.T) {
	for _, root := range []string{".", "../analytics", "../queries", "../schemas"} {
		noExportedVariables(t, root)
	}
}

func noExportedVariables(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "internal" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if n.IsExported() && !strings.HasPrefix(n.Name, "Err") {
						t.Errorf("%s: exported variable %s", path, n.Name)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDialectHandles: a dialect's handles compare equal however got, and
// differ between dialects.
func TestDialectHandles(t *testing.T) {
	jcs, err := canon.Lookup("jcs")
	if err != nil {
		t.Fatal(err)
	}
	if jcs != canon.RFC8785() || canon.RFC8785() == canon.Asqav() || canon.AsqavAt(canon.AsqavUTF16Since()) != canon.Asqav() {
		t.Fatal("dialect handles do not compare as their dialects")
	}
}
