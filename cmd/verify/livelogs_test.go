package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/receiptgen"
)

// liveCorpus generates n receipts of one day and returns their lines and
// the key file.
func liveCorpus(t *testing.T, seed uint64, n int) (lines []string, keys string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := receiptgen.Generate(receiptgen.Config{Seed: seed, N: n, Days: 1, Algs: receiptgen.Ed25519Only}, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n"), filepath.Join(dir, "keys", "jwks.json")
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestMissingPathFailsAlone: a PATH that does not exist is named and the
// others are verified, loaded and reported; the exit code says so at the
// end.
func TestMissingPathFailsAlone(t *testing.T) {
	t.Parallel()
	lines, keys := liveCorpus(t, 7, 10)
	dir := t.TempDir()
	log := filepath.Join(dir, "agent.jsonl")
	writeFile(t, log, []byte(strings.Join(lines, "")))
	missing := filepath.Join(dir, "gone.jsonl")
	db := filepath.Join(dir, "audit.duckdb")
	code, stdout, stderr := runVerify(t, "audit", "--db", db, "--out", filepath.Join(dir, "report"), "--keys", keys, "--at=2026-12-01T00:00:00Z", missing, log)
	if code != exitNoInput {
		t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitNoInput, stdout, stderr)
	}
	if !strings.Contains(stderr, "verify: load: "+missing+": unreadable, not loaded: stat "+missing+": no such file or directory") {
		t.Errorf("stderr does not name the missing path:\n%s", stderr)
	}
	if !strings.Contains(stdout, "loaded 1 file(s)") || !strings.Contains(stdout, "10 receipts") {
		t.Errorf("the other input was not loaded:\n%s", stdout)
	}
	code, stdout, stderr = runVerify(t, "receipts", "--keys", keys, "--at=2026-12-01T00:00:00Z", missing, log)
	if code != exitNoInput || !strings.Contains(stdout, "10 receipts verified") || !strings.Contains(stdout+stderr, missing) {
		t.Errorf("receipts: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}

// TestRotatedNamesRead: a directory walk reads logrotate's names (.N,
// .N.gz, -YYYYMMDD, -YYYYMMDD.gz) and .log, --include adds other names,
// --exclude leaves some out, and what is not read is named.
func TestRotatedNamesRead(t *testing.T) {
	t.Parallel()
	lines, keys := liveCorpus(t, 8, 12)
	dir := filepath.Join(t.TempDir(), "logs")
	part := func(i int) []byte { return []byte(strings.Join(lines[2*i:2*i+2], "")) }
	writeFile(t, filepath.Join(dir, "agent.jsonl"), part(0))
	writeFile(t, filepath.Join(dir, "agent.jsonl.1"), part(1))
	writeFile(t, filepath.Join(dir, "agent.jsonl.2.gz"), gzipBytes(t, part(2)))
	writeFile(t, filepath.Join(dir, "agent.jsonl-20261102"), part(3))
	writeFile(t, filepath.Join(dir, "agent.jsonl-20261101.gz"), gzipBytes(t, part(4)))
	writeFile(t, filepath.Join(dir, "tools.log"), part(5))
	writeFile(t, filepath.Join(dir, "notes.txt"), []byte("not receipts\n"))
	writeFile(t, filepath.Join(dir, "agent.jsonl.bak"), part(0))
	code, stdout, stderr := runVerify(t, "receipts", "--keys", keys, "--at=2026-12-01T00:00:00Z", dir)
	if code != exitOK || !strings.Contains(stdout, "12 receipts verified (12 pass") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "2 file(s) not read") || !strings.Contains(stderr, "notes.txt") || !strings.Contains(stderr, "agent.jsonl.bak") {
		t.Errorf("stderr does not name the files passed over:\n%s", stderr)
	}
	code, stdout, stderr = runVerify(t, "receipts", "--keys", keys, "--at=2026-12-01T00:00:00Z", "--exclude", "*.gz", "--include", "*.txt", dir)
	if code != exitRejected || !strings.Contains(stdout, "8 receipts verified (8 pass") || !strings.Contains(stdout, "1 unreadable") {
		t.Errorf("--include/--exclude: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}
