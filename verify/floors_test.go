package verify

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestImportFloors keeps the module's floors apart: a package of the
// top-level internal/ that the verify tree (verify/...) builds on must not
// itself build on the verify tree, so the helpers verify uses stay leaves
// and what uses verify (a generator, a test kit) sits above it. The one
// floor between is package stream's engine (internal/engine/streamrun),
// which builds on verify as stream does. Test-only imports do not count.
func TestImportFloors(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list packages with:", err)
	}
	const module = "github.com/receiptverify/verify"
	out, err := exec.Command(goTool, "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for line := range bytes.Lines(out) {
		f := strings.Fields(string(line))
		deps[f[0]] = f[1:]
	}
	inVerify := func(p string) bool { return p == module+"/verify" || strings.HasPrefix(p, module+"/verify/") }
	inInternal := func(p string) bool { return strings.HasPrefix(p, module+"/internal/") }
	usedByVerify := map[string]string{} // internal package -> a verify package that uses it
	for p, ds := range deps {
		if !inVerify(p) || p == module+"/verify/stream" {
			continue
		}
		for _, d := range ds {
			if inInternal(d) {
				usedByVerify[d] = p
			}
		}
	}
	if len(usedByVerify) == 0 {
		t.Fatal("no internal/ package used by the verify tree: go list gave nothing to check")
	}
	for p, user := range usedByVerify {
		for _, d := range deps[p] {
			if inVerify(d) {
				t.Errorf("%s is used by %s and itself uses %s: an internal/ package that verify builds on must not build on verify", p, user, d)
			}
		}
	}
}
