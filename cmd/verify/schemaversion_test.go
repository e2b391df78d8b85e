package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/analytics"
)

// TestNewerSchemaRefused: a database a newer verify wrote (its recorded
// schema version above this one's) is refused in plain words by every
// command that opens it, and left as it is.
func TestNewerSchemaRefused(t *testing.T) {
	t.Parallel()
	want := fmt.Sprintf("written by a newer verify (database schema version %d; this verify knows versions up to %d)", analytics.SchemaVersion+1, analytics.SchemaVersion)
	schemaRefused(t, "UPDATE schema_version SET version = version + 1", want)
}

// TestOlderSchemaRefused: a database an earlier verify wrote is refused
// the same way, naming the file and saying to load it again.
func TestOlderSchemaRefused(t *testing.T) {
	t.Parallel()
	want := fmt.Sprintf("written by an earlier verify (schema version %d; this verify reads version %d): load the archive again into a new database", analytics.SchemaVersion-1, analytics.SchemaVersion)
	schemaRefused(t, "UPDATE schema_version SET version = version - 1", want)
}

// schemaRefused loads a database, changes it with change and requires
// every command that opens it to refuse it with exit 74 and want, naming
// the file, leaving it as it is.
func schemaRefused(t *testing.T, change, want string) {
	t.Helper()
	lines, keys := liveCorpus(t, 13, 4)
	dir := t.TempDir()
	log := filepath.Join(dir, "agent.jsonl")
	writeFile(t, log, []byte(strings.Join(lines, "")))
	db := filepath.Join(dir, "audit.duckdb")
	if code, _, stderr := runVerify(t, "load", "--db", db, "--keys", keys, "--at=2026-12-01T00:00:00Z", log); code != exitOK {
		t.Fatalf("load: exit %d\n%s", code, stderr)
	}
	d, err := analytics.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.SQL().Exec(change); err != nil {
		t.Fatal(err)
	}
	d.Close()
	before := fileSHA256(t, db)
	for _, args := range [][]string{
		{"query", "--db", db, "days"},
		{"load", "--db", db, "--keys", keys, "--at=2026-12-01T00:00:00Z", log},
		{"audit", "--db", db, "--out", filepath.Join(dir, "report"), "--keys", keys, "--at=2026-12-01T00:00:00Z", log},
		{"report", "--db", db, "--day", "2026-11-01", "--out", filepath.Join(dir, "report")},
		{"explain", "--db", db, log + ":1"},
		{"export", "--db", db, "--parquet", filepath.Join(dir, "pq")},
	} {
		code, stdout, stderr := runVerify(t, args...)
		if code != exitIOErr || stdout != "" || !strings.Contains(stderr, want) || !strings.Contains(stderr, db) {
			t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", args[0], code, exitIOErr, stdout, stderr)
		}
	}
	if fileSHA256(t, db) != before {
		t.Errorf("the database changed")
	}
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}
