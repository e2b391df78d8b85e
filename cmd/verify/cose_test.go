package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/vectors"
)

// TestCOSEFile: a .cose file, one binary COSE_Sign1 transparent
// statement (the interop vector scitt/es256-attached, as its bytes), is
// read as the scitt-statement line it is and verifies as that line does,
// in receipts and in a load; cut short, it is refused (exit 66) with the
// file named. Serial, like TestExitCodes.
func TestCOSEFile(t *testing.T) {
	vec := filepath.Join("..", "..", "testdata", "interop", "scitt", "es256-attached")
	cose := vectors.TransparentStatement(t, vec)
	dir := t.TempDir()
	whole, cut := filepath.Join(dir, "statement.cose"), filepath.Join(dir, "cut.cose")
	if err := os.WriteFile(whole, cose, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, cose[:len(cose)-7], 0o644); err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(vec, "jwks.json")
	verifyOne := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"verify"}, args...), strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	code, out, errs := verifyOne("receipts", "-f", "jsonl", "--keys", keys, whole)
	if code != exitOK || !strings.Contains(out, `"format":"scitt-statement","verdict":"PASS"`) {
		t.Fatalf("receipts %s: exit %d\n%s%s", whole, code, out, errs)
	}
	code, out, errs = verifyOne("receipts", "--keys", keys, cut)
	if code != exitNoInput || !strings.Contains(out, "cut.cose:0: UNREADABLE") || !strings.Contains(out, "truncated") {
		t.Fatalf("receipts %s: exit %d, want %d naming the file, truncated\n%s%s", cut, code, exitNoInput, out, errs)
	}
	// A directory walk reads it with --include.
	walk := filepath.Join(dir, "walk")
	if err := os.Mkdir(walk, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(walk, "s.cose"), cose, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = verifyOne("receipts", "-f", "jsonl", "--keys", keys, "--include", "*.cose", walk)
	if code != exitOK || !strings.Contains(out, `"format":"scitt-statement","verdict":"PASS"`) {
		t.Fatalf("receipts --include '*.cose' %s: exit %d\n%s%s", walk, code, out, errs)
	}
	db := filepath.Join(dir, "a.duckdb")
	if code, out, errs = verifyOne("load", "-q", "--db", db, "--keys", keys, "--at", "2026-12-01T00:00:00Z", whole); code != exitOK {
		t.Fatalf("load: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = verifyOne("explain", "--db", db, whole+":1")
	if code != exitOK || !strings.Contains(out, "scitt-statement") || !strings.Contains(out, "as loaded PASS") {
		t.Fatalf("the loaded statement: exit %d\n%s%s", code, out, errs)
	}
}
