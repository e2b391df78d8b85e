package main

import (
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/receiptverify/verify/analytics"
)

// verifyProcess runs the verify command as a process of its own (the test
// binary, which testscript.Main puts in $PATH as verify): DuckDB's locks
// are between processes.
func verifyProcess(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command("verify", args...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, o.String(), e.String()
}

func sumFile(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestReadersBesideEachOther: query, report and export open the database
// read-only, so they run while another process reads it, and change
// nothing; a load while a process holds the database says who holds it.
func TestReadersBesideEachOther(t *testing.T) {
	corpus := genAuditCorpus(t)
	work := t.TempDir()
	db := filepath.Join(work, "audit.duckdb")
	receipts := filepath.Join(corpus, "receipts.jsonl")
	if code, _, stderr := runVerify(t, "load", "--db", db, "--keys", filepath.Join(corpus, "keys", "jwks.json"), "--at", "2026-12-01T00:00:00Z", receipts); code != exitOK {
		t.Fatalf("load: %d\n%s", code, stderr)
	}
	before := sumFile(t, db)

	reader, err := analytics.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"query", "--db", db, "failures"},
		{"report", "--db", db, "--day", "2026-11-02", "--out", filepath.Join(work, "r"), "--no-fail"},
		{"export", "--db", db, "--parquet", filepath.Join(work, "pq")},
	} {
		if code, _, stderr := verifyProcess(t, args...); code != exitOK {
			t.Errorf("%s beside a reader: exit %d\n%s", args[0], code, stderr)
		}
	}
	// A load needs the database to itself.
	if code, _, stderr := verifyProcess(t, "load", "--db", db, receipts); code != exitIOErr || !strings.Contains(stderr, fmt.Sprintf("in use: process %d (", os.Getpid())) {
		t.Errorf("load beside a reader: exit %d, want %d and the reader named\n%s", code, exitIOErr, stderr)
	}
	reader.Close()
	if sumFile(t, db) != before {
		t.Error("query, report or export changed the database")
	}

	writer, err := analytics.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	holder := fmt.Sprintf("in use: process %d (", os.Getpid())
	for _, args := range [][]string{
		{"load", "--db", db, receipts},
		{"query", "--db", db, "failures"},
	} {
		code, _, stderr := verifyProcess(t, args...)
		if code != exitIOErr || !strings.Contains(stderr, holder) {
			t.Errorf("%s while a process writes: exit %d, want %d and %q\n%s", args[0], code, exitIOErr, holder, stderr)
		}
	}
}

// TestForeignDatabaseLeftAlone: query, report, export and load refuse
// another tool's DuckDB database and leave its bytes as they were.
func TestForeignDatabaseLeftAlone(t *testing.T) {
	work := t.TempDir()
	other := filepath.Join(work, "other.duckdb")
	c, err := duckdb.NewConnector(other, nil)
	if err != nil {
		t.Fatal(err)
	}
	odb := sql.OpenDB(c)
	_, err = odb.Exec("CREATE TABLE inventory (item VARCHAR); INSERT INTO inventory VALUES ('x')")
	odb.Close()
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(work, "r.jsonl")
	if err := os.WriteFile(in, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := sumFile(t, other)
	for _, args := range [][]string{
		{"query", "--db", other, "failures"},
		{"report", "--db", other, "--day", "2026-11-02", "--out", filepath.Join(work, "r")},
		{"export", "--db", other, "--parquet", filepath.Join(work, "pq")},
		{"load", "--db", other, in},
		{"audit", "--db", other, "--out", filepath.Join(work, "a"), in},
	} {
		code, _, stderr := runVerify(t, args...)
		if code != exitIOErr || !strings.Contains(stderr, "not an audit database") {
			t.Errorf("%s: exit %d, want %d\n%s", args[0], code, exitIOErr, stderr)
		}
		if sumFile(t, other) != before {
			t.Fatalf("%s changed another tool's database", args[0])
		}
	}
	if ents, _ := os.ReadDir(work); len(ents) != 2 {
		t.Errorf("files written beside it: %v", ents)
	}
}
