package verify

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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
	for _, root := range []string{".", "../analytics", "../queries", "../schemas", "../internal", "../cmd"} {
		noExportedVariables(t, root)
	}
}

func noExportedVariables(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && d.Name() == "testdata" {
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

// TestCommandPackagesExportOnlyWhatIsUsed: analytics, queries and
// schemas keep the product's layout at the top of the module but are the
// command's, not a library: each name they export is used by another
// package of the module (the command, the sharded lake, the engine
// tests). A name only its own package uses is unexported, so that their
// documentation lists what the command relies on and nothing else. A type
// that only the signature of an exported function or method names counts
// as used: callers hold its values, and Go asks that they can name it.
func TestCommandPackagesExportOnlyWhatIsUsed(t *testing.T) {
	var others []string // the module's Go files outside the package
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			others = append(others, path+"\x00"+string(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"analytics", "queries", "schemas"} {
		dir := filepath.Join("..", pkg)
		names, inSignatures := exportedNames(t, dir)
		for _, name := range names {
			used := regexp.MustCompile(`\b` + pkg + `\.` + name + `\b`)
			found := inSignatures[name]
			for _, f := range others {
				path, text, _ := strings.Cut(f, "\x00")
				if filepath.Dir(path) != dir && used.MatchString(text) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s exports %s, which no other package uses: unexport it", pkg, name)
			}
		}
	}
}

// exportedNames are the exported top-level names of the package in dir
// (functions, types, constants and variables), and the names the
// signatures of its exported functions and methods mention.
func exportedNames(t *testing.T, dir string) (names []string, inSignatures map[string]bool) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	inSignatures = map[string]bool{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names = append(names, d.Name.Name)
				}
				if d.Name.IsExported() {
					ast.Inspect(d.Type, func(n ast.Node) bool {
						if id, ok := n.(*ast.Ident); ok {
							inSignatures[id.Name] = true
						}
						return true
					})
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	return names, inSignatures
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
