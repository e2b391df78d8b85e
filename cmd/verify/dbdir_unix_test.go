//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOnlyDatabaseDirectory: a database in a directory that cannot be
// written (DuckDB writes its journal there) is refused before anything is
// loaded, naming the directory, not with the engine's commit error.
func TestReadOnlyDatabaseDirectory(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root writes a directory whatever its mode")
	}
	first, keys := liveCorpus(t, 14, 12)
	dir := t.TempDir()
	in := filepath.Join(dir, "a.jsonl")
	writeFile(t, in, []byte(strings.Join(first[:6], "")))
	ro := filepath.Join(dir, "ro")
	db := filepath.Join(ro, "audit.duckdb")
	if code, _, stderr := runVerify(t, "load", "--db", db, "--keys", keys, in); code != exitOK {
		t.Fatalf("load: exit %d\n%s", code, stderr)
	}
	writeFile(t, in, []byte(strings.Join(first, "")))
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	code, _, stderr := runVerify(t, "load", "--db", db, "--keys", keys, in)
	if want := "its directory " + ro + " is not writable"; code != exitIOErr || !strings.Contains(stderr, want) {
		t.Errorf("load into a read-only directory: exit %d, want %d and %q\n%s", code, exitIOErr, want, stderr)
	}
}
