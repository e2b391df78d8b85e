package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/analytics"
)

// TestShowByteIdentity loads a generated corpus, plain and gzipped, with
// the default raw policy and prints every line back with verify show:
// each is the archive's bytes exactly, whether the database holds it or
// the archive gives it, and the database holds the line of every receipt
// that is not PASS. Then the archive changes (exit 65) and moves (exit
// 66), and with --store-raw all nothing needs it.
// Serial: see TestExitCodes.
func TestShowByteIdentity(t *testing.T) {
	corpus := genAuditCorpus(t)
	work := t.TempDir()
	keys := filepath.Join(corpus, "keys", "jwks.json")
	data, err := os.ReadFile(filepath.Join(corpus, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// The corpus's first 100 receipts of 300 (five of them not PASS, so
	// stored with their line), with a blank line and a CRLF line end, so
	// that offsets are not just line lengths added up.
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))[:100]
	data = bytes.Join([][]byte{lines[0], []byte(""), append(bytes.Clone(lines[1]), '\r'), bytes.Join(lines[2:], []byte("\n"))}, []byte("\n"))
	data = append(data, '\n')
	want := append([][]byte{lines[0], nil, lines[1]}, lines[2:]...)

	archive := filepath.Join(work, "archive")
	if err := os.Mkdir(archive, 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(archive, "day.jsonl")
	if err := os.WriteFile(plain, data, 0o644); err != nil {
		t.Fatal(err)
	}
	gzipped := filepath.Join(archive, "other.jsonl.gz")
	if err := os.WriteFile(gzipped, gzipOf(t, data), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(work, "audit.duckdb")
	gzDB := filepath.Join(work, "gzip.duckdb") // the same content: a database of its own
	for _, l := range [][2]string{{db, plain}, {gzDB, gzipped}} {
		if code, _, stderr := runVerify(t, "load", "--db", l[0], "--keys", keys, "--at", "2026-12-01T00:00:00Z", l[1]); code != exitOK {
			t.Fatalf("load %s: exit %d\n%s", l[1], code, stderr)
		}
	}
	fromDB, fromArchive := 0, 0
	// One run per line would take a minute: the first nine lines and every
	// sixth, and every 24th on the second and third reading.
	stride := 6
	check := func(file string, want [][]byte, extra ...string) {
		t.Helper()
		for i, w := range want {
			if w == nil || i > 8 && i%stride != 0 {
				continue // the blank line has no row
			}
			code, stdout, stderr := runVerify(t, append(append([]string{"show", "--db", db}, extra...), fmt.Sprintf("%s:%d", file, i+1))...)
			if code != exitOK || stdout != string(w)+"\n" {
				t.Fatalf("show %s:%d: exit %d, bytes equal: %v\n%s", file, i+1, code, stdout == string(w)+"\n", stderr)
			}
			switch {
			case strings.Contains(stderr, "from the database"):
				fromDB++
			case strings.Contains(stderr, "SHA-256 checked"):
				fromArchive++
			default:
				t.Fatalf("show %s:%d: stderr does not say where: %s", file, i+1, stderr)
			}
		}
	}
	check(plain, want)
	stride = 24
	db = gzDB
	check(gzipped, want)
	db = filepath.Join(work, "audit.duckdb")
	if fromDB == 0 || fromArchive == 0 {
		t.Fatalf("%d lines from the database, %d from the archive: the policy is not exercised", fromDB, fromArchive)
	}
	check(plain, want, "--archive")

	// Every receipt that is not PASS has its line in the database.
	adb, err := analytics.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	var missingRaw int
	if err := adb.SQL().QueryRow("SELECT count(*) FROM receipts WHERE verdict <> 'PASS' AND raw IS NULL").Scan(&missingRaw); err != nil {
		t.Fatal(err)
	}
	adb.Close()
	if missingRaw != 0 {
		t.Errorf("%d receipts not PASS stored without their line", missingRaw)
	}

	// By action_id.
	id := actionIDOf(t, lines[0])
	if code, stdout, _ := runVerify(t, "show", "--db", db, id); code != exitOK || !strings.Contains(stdout, string(lines[0])+"\n") {
		t.Errorf("show %s: exit %d\n%s", id, code, stdout)
	}
	if code, _, stderr := runVerify(t, "show", "--db", db, plain+":99999"); code != exitRejected || !strings.Contains(stderr, "no receipt") {
		t.Errorf("show of no receipt: exit %d\n%s", code, stderr)
	}
	if code, _, _ := runVerify(t, "show", plain+":1"); code != exitUsage {
		t.Errorf("show without --db: exit %d", code)
	}

	// Find a PASS line the database does not hold.
	passLine := 0
	for i := range want {
		if want[i] == nil {
			continue
		}
		if _, _, stderr := runVerify(t, "show", "--db", db, fmt.Sprintf("%s:%d", plain, i+1)); strings.Contains(stderr, "SHA-256 checked") {
			passLine = i + 1
			break
		}
	}
	at := fmt.Sprintf("%s:%d", plain, passLine)

	// The archive changed: one byte of that line.
	changed := bytes.Clone(data)
	off := bytes.Index(changed, want[passLine-1])
	changed[off+10] ^= 1
	if err := os.WriteFile(plain, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runVerify(t, "show", "--db", db, at); code != exitChanged || stdout != "" || !strings.Contains(stderr, "has changed since it was loaded") {
		t.Errorf("changed archive: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	// The archive moved: exit 66 (show.txtar has --root find it).
	if err := os.WriteFile(plain, data, 0o644); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(work, "moved")
	if err := os.Rename(archive, moved); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runVerify(t, "show", "--db", db, at); code != exitNoInput || !strings.Contains(stderr, "moved or deleted") {
		t.Errorf("moved archive: exit %d\n%s", code, stderr)
	}
	// --store-raw all: the database alone shows every line.
	if err := os.Rename(moved, archive); err != nil {
		t.Fatal(err)
	}
	all := filepath.Join(work, "all.duckdb")
	if code, _, stderr := runVerify(t, "load", "--db", all, "--keys", keys, "--at", "2026-12-01T00:00:00Z", "--store-raw", "all", plain); code != exitOK {
		t.Fatalf("load --store-raw all: exit %d\n%s", code, stderr)
	}
	if err := os.Remove(plain); err != nil {
		t.Fatal(err)
	}
	db = all
	fromDB, fromArchive = 0, 0
	check(plain, want)
	if fromArchive != 0 {
		t.Errorf("--store-raw all: %d lines read from the archive", fromArchive)
	}
	if code, _, _ := runVerify(t, "load", "--db", filepath.Join(work, "x.duckdb"), "--keys", keys, "--store-raw", "some", gzipped); code != exitUsage {
		t.Errorf("--store-raw some: exit %d", code)
	}
}

func gzipOf(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func actionIDOf(t *testing.T, line []byte) string {
	t.Helper()
	const key = `"action_id":"`
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		t.Fatalf("no action_id in %.80s", line)
	}
	rest := line[i+len(key):]
	return string(rest[:bytes.IndexByte(rest, '"')])
}
