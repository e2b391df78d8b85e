package limits_test

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
)

// root is the module's root, from this package's directory.
const root = "../.."

// notLimits are constants whose names look like limits but that bound no
// untrusted input, keyed by directory and name.
var notLimits = map[string]string{
	"internal/helpers/bufpool MaxCap":    "the largest buffer a pool keeps, not a bound on input",
	"internal/engine/streamrun maxFrame": "derived from MaxDocumentBytes; bounds the tool's own spool as read back",
	"analytics chartMaxName":             "the width at which a chart truncates a name",
	"analytics defaultMaxObject":         "DuckDB's default maximum_object_size, raised to the longest row",
	"analytics defaultMaxFileBytes":      "where the Parquet export starts its next part file, a size of output",
	"internal/shard MaxShard":            "the largest --shard number the record ordinals have room for, checked as a usage error",
}

// limitName is how a limit is named outside package limits.
var limitName = regexp.MustCompile(`^(max|Max)[A-Z0-9]|[a-z0-9]Max[A-Z]`)

// TestIndex checks that every limit is either defined in package limits or
// listed in its doc with the directory that holds it, and that every one
// is in the limits table (docs/limits.md): a limit added anywhere
// without the index and the table fails here.
func TestIndex(t *testing.T) {
	fset := token.NewFileSet()
	doc, err := parser.ParseFile(fset, "limits.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]bool{}
	for _, line := range strings.Split(doc.Doc.Text(), "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			index[f[0]+" "+f[1]] = true
		}
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "limits.md"))
	if err != nil {
		t.Fatal(err)
	}
	table := section("\n"+string(page), "# Limits")
	if table == "" {
		t.Fatal("docs/limits.md has no # Limits section")
	}

	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				for _, id := range spec.(*ast.ValueSpec).Names {
					name := id.Name
					key := rel + " " + name
					here := rel == "internal/limits"
					if _, ok := notLimits[key]; ok || !here && !limitName.MatchString(name) {
						continue
					}
					found++
					if !here && !index[key] {
						t.Errorf("%s: limit %s is not listed in package limits' doc (%q)", rel, name, key)
					}
					if !regexp.MustCompile(`\b` + name + `\b`).MatchString(table) {
						t.Errorf("%s: limit %s is not in docs/limits.md", rel, name)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 18 {
		t.Fatalf("found %d limits, want at least 18: is the walk reading the module?", found)
	}
	// Every line of the index, and every exception, names a constant that
	// exists.
	for key := range index {
		if strings.Contains(key, "/") && !exists(t, fset, key) {
			t.Errorf("package limits' doc lists %q, which is not defined there", key)
		}
	}
	for key := range notLimits {
		if !exists(t, fset, key) {
			t.Errorf("notLimits lists %q, which is not defined there", key)
		}
	}
}

// section returns the text of the Markdown section headed heading, up to
// the next heading of the same or a higher level.
func section(doc, heading string) string {
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		return ""
	}
	rest := doc[i+len(heading)+2:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// exists reports whether the constant of key ("dir Name") is defined in
// dir's non-test files.
func exists(t *testing.T, fset *token.FileSet, key string) bool {
	dir, name, _ := strings.Cut(key, " ")
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, spec := range gd.Specs {
					for _, id := range spec.(*ast.ValueSpec).Names {
						if id.Name == name {
							return true
						}
					}
				}
			}
		}
	}
	return false
}
