package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/limits"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/testenv"
)

// TestLoadExitCodes pins the exit codes of `verify load` and its per-file
// lines on stderr. Serial, like TestExitCodes: the cases share a database
// and urfave/cli's package-level flags.
func TestLoadExitCodes(t *testing.T) {
	dir := t.TempDir()
	if _, err := receiptgen.Generate(receiptgen.Config{Seed: 5, N: 40, Rate: 0.1, Days: 2, Algs: receiptgen.Ed25519Only()}, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	receipts := filepath.Join(dir, "receipts.jsonl")
	keys := filepath.Join(dir, "keys", "jwks.json")
	schemas := filepath.Join(dir, "schemas")
	other := t.TempDir()
	notGzip := filepath.Join(other, "not.jsonl.gz")
	if err := os.WriteFile(notGzip, []byte("plain text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	garbageDB := filepath.Join(other, "garbage.duckdb")
	if err := os.WriteFile(garbageDB, bytes.Repeat([]byte("not a database "), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "audit.duckdb")
	at := "--at=2026-12-01T00:00:00Z"
	load := func(args ...string) []string {
		return append([]string{"load", "--db", db, "--keys", keys, "--schemas", schemas, at}, args...)
	}
	tests := []struct {
		name   string
		args   []string
		want   int
		stderr string // the start of a line stderr must hold
	}{
		{"load", load(receipts), exitOK, "verify: load: " + receipts + ": 40 accepted, 0 rejected"},
		{"load again", load(receipts), exitOK, "verify: load: " + receipts + ": already loaded"},
		{"no keys", []string{"load", "--db", db, at, dir}, exitOK, "verify: load: warning: " + receipts + ": already loaded, but its stored verdicts came from other key or schema files"},
		{"no keys, reverify", []string{"load", "--db", db, at, "--reverify", receipts}, exitOK, "verify: load: " + receipts + ": already loaded; its stored receipts verified again"},
		{"keys again, reverify", load("--reverify", receipts), exitOK, "verify: load: " + receipts + ": already loaded; its stored receipts verified again"},
		{"keys again", load(receipts), exitOK, "verify: load: " + receipts + ": already loaded\n"},
		// The next night's clock is not other trust material.
		{"keys again, another --at", []string{"load", "--db", db, "--keys", keys, "--schemas", schemas, "--at=2026-12-02T01:10:00Z", receipts}, exitOK, "verify: load: " + receipts + ": already loaded\n"},
		{"keys again, no --at", []string{"load", "--db", db, "--keys", keys, "--schemas", schemas, receipts}, exitOK, "verify: load: " + receipts + ": already loaded\n"},
		{"unreadable gzip", load(notGzip), exitNoInput, "verify: load: " + notGzip + ": unreadable, not loaded: "},
		{"missing path", load(filepath.Join(dir, "missing.jsonl")), exitNoInput, ""},
		{"missing keys", []string{"load", "--db", db, "--keys", filepath.Join(dir, "nope.json"), receipts}, exitNoInput, ""},
		{"no db", []string{"load", receipts}, exitUsage, ""},
		{"no path", []string{"load", "--db", db}, exitUsage, ""},
		{"bad at", []string{"load", "--db", db, "--at", "yesterday", receipts}, exitUsage, ""},
		{"too many workers", []string{"load", "--db", db, "--workers", "100000", receipts}, exitUsage, "verify: --workers must be 0 (one per core) to "},
		{"unknown flag", []string{"load", "--db", db, "--nope", receipts}, exitUsage, ""},
		{"db is a directory", []string{"load", "--db", dir, receipts}, exitIOErr, ""},
		{"db in a missing directory: made", []string{"load", "--db", filepath.Join(dir, "no", "such", "dir", "a.duckdb"), receipts}, exitOK, "verify: load: " + receipts + ": 40 accepted"},
		{"db under a file", []string{"load", "--db", filepath.Join(receipts, "dir", "a.duckdb"), receipts}, exitIOErr, "verify: --db: mkdir "},
		{"db not a database", []string{"load", "--db", garbageDB, receipts}, exitIOErr, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			got := run(append([]string{"verify"}, tt.args...), io.LimitReader(nil, 0), &stdout, &stderr)
			if got != tt.want {
				t.Errorf("exit %d, want %d\nstderr:\n%s", got, tt.want, &stderr)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout not empty:\n%s", &stdout)
			}
			if tt.stderr != "" && !strings.Contains("\n"+stderr.String(), "\n"+tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, &stderr)
			}
			for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if l != "" && !strings.HasPrefix(l, "verify: ") {
					t.Errorf("stderr line without \"verify: \": %q", l)
				}
			}
		})
	}
}

// TestLoadGrownAndChanged: a file loaded, grown and loaded again adds its
// new lines; changed where it was loaded, it is refused with exit 66
// naming the line, and the other inputs are loaded.
func TestLoadGrownAndChanged(t *testing.T) {
	dir := t.TempDir()
	if _, err := receiptgen.Generate(receiptgen.Config{Seed: 6, N: 40, Days: 1, Algs: receiptgen.Ed25519Only()}, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	log := filepath.Join(t.TempDir(), "agent.jsonl")
	write := func(ls []string) {
		if err := os.WriteFile(log, []byte(strings.Join(ls, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(t.TempDir(), "audit.duckdb")
	load := func(want int, wantLine string, paths ...string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := append([]string{"verify", "load", "--db", db, "--keys", filepath.Join(dir, "keys", "jwks.json"), "--at=2026-12-01T00:00:00Z"}, paths...)
		if got := run(args, io.LimitReader(nil, 0), &stdout, &stderr); got != want {
			t.Errorf("exit %d, want %d\nstderr:\n%s", got, want, &stderr)
		}
		if !strings.Contains(stderr.String(), wantLine) {
			t.Errorf("stderr lacks %q:\n%s", wantLine, &stderr)
		}
	}
	write(lines[:20])
	load(exitOK, "verify: load: "+log+": 20 accepted, 0 rejected", log)
	write(lines[:40])
	load(exitOK, "verify: load: "+log+": grown since loaded: lines 21 on: 20 accepted, 0 rejected", log)
	changed := append([]string{}, lines[:40]...)
	changed[4], changed[30] = changed[30], changed[4]
	write(changed)
	other := filepath.Join(t.TempDir(), "other.jsonl")
	if err := os.WriteFile(other, []byte(lines[5]), 0o644); err != nil {
		t.Fatal(err)
	}
	load(exitNoInput, "verify: load: "+log+": refused, not loaded: line 5 differs from the line loaded before from "+log, log, other)
	load(exitOK, "verify: load: "+other+": already loaded", other)
}

// TestLoadEditedInPlaceSameLength: a stored line edited in place without
// changing its length (one digit, one signature byte), in a file of the
// same size or one grown since, is refused with exit 66 naming that line:
// the loaded part is compared by content, not by length.
func TestLoadEditedInPlaceSameLength(t *testing.T) {
	dir := t.TempDir()
	if _, err := receiptgen.Generate(receiptgen.Config{Seed: 7, N: 30, Days: 1, Algs: receiptgen.Ed25519Only()}, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	// digit changes the first digit after `after` in line; sig one byte of
	// its signature value.
	edit := func(line, after string) string {
		i := strings.Index(line, after)
		if i < 0 {
			t.Fatalf("no %q in %s", after, line)
		}
		for j := i + len(after); j < len(line); j++ {
			c := line[j]
			if c >= '0' && c <= '9' || after == `"sig":"` && c != '"' {
				b := []byte(line)
				b[j] = map[bool]byte{true: 'B', false: 'A'}[c == 'A']
				if c >= '0' && c <= '9' {
					b[j] = '0' + (c-'0'+1)%10
				}
				return string(b)
			}
		}
		t.Fatalf("nothing to edit after %q in %s", after, line)
		return ""
	}
	cases := []struct {
		name  string
		line  int // 1-based
		after string
		grown bool
	}{
		{"a digit, same size", 7, `"issued_at":"`, false},
		{"a signature byte, same size", 12, `"sig":"`, false},
		{"a digit, grown since", 3, `"issued_at":"`, true},
		{"a signature byte, grown since", 20, `"sig":"`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			log, db := filepath.Join(tmp, "agent.jsonl"), filepath.Join(tmp, "audit.duckdb")
			load := func(want int, wantLine string, ls []string) {
				t.Helper()
				if err := os.WriteFile(log, []byte(strings.Join(ls, "")), 0o644); err != nil {
					t.Fatal(err)
				}
				var stdout, stderr bytes.Buffer
				args := []string{"verify", "load", "--db", db, "--keys", filepath.Join(dir, "keys", "jwks.json"), "--at=2026-12-01T00:00:00Z", log}
				if got := run(args, io.LimitReader(nil, 0), &stdout, &stderr); got != want {
					t.Errorf("exit %d, want %d\nstderr:\n%s", got, want, &stderr)
				}
				if !strings.Contains(stderr.String(), wantLine) {
					t.Errorf("stderr lacks %q:\n%s", wantLine, &stderr)
				}
			}
			load(exitOK, ": 24 accepted, 0 rejected", lines[:24])
			edited := slices.Clone(lines[:24])
			if c.grown {
				edited = slices.Clone(lines[:30])
			}
			edited[c.line-1] = edit(edited[c.line-1], c.after)
			if len(edited[c.line-1]) != len(lines[c.line-1]) || edited[c.line-1] == lines[c.line-1] {
				t.Fatalf("the edit changed the length or nothing")
			}
			load(exitNoInput, fmt.Sprintf("verify: load: %s: refused, not loaded: line %d differs from the line loaded before from %s", log, c.line, log), edited)
		})
	}
}

// TestBlankLinesBounded: a gzip of blank lines, which the content bound
// lets expand a hundred times, is refused at its MaxBlankLinesPerFile+1st
// blank line, naming the file and line, instead of costing minutes. A
// long test (2^20 blank lines, verified and loaded: 2 to 3 CPU-seconds):
// streamrun's TestMaxBlankLinesPerFile checks the bound at a hundred.
func TestBlankLinesBounded(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	var content bytes.Buffer
	content.Write(bytes.Repeat([]byte{'\n'}, limits.MaxBlankLinesPerFile+1))
	// Incompressible bytes after them, so that the content bound (a
	// hundred times the compressed size) is not what refuses the file.
	noise := make([]byte, 30000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	content.WriteString(base64.StdEncoding.EncodeToString(noise) + "\n")
	path := filepath.Join(t.TempDir(), "blank.jsonl.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(content.Bytes())
	zw.Close()
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	got := run([]string{"verify", "receipts", "--at=2026-12-01T00:00:00Z", path}, io.LimitReader(nil, 0), &stdout, &stderr)
	want := fmt.Sprintf("%s:%d: UNREADABLE unknown: more than %d blank lines in one file: refused", path, limits.MaxBlankLinesPerFile+1, limits.MaxBlankLinesPerFile)
	if got != exitNoInput || !strings.Contains(stdout.String(), want) {
		t.Errorf("exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", got, exitNoInput, want, &stdout, &stderr)
	}
	// A load refuses the file whole, named on stderr, and stores
	// nothing of it: not its lines before the bound, not a reject.
	db := filepath.Join(t.TempDir(), "audit.duckdb")
	code, _, errs := runVerify(t, "load", "-q", "--db", db, path)
	want = fmt.Sprintf("verify: load: %s: unreadable, not loaded: line %d: more than %d blank lines in one file: refused", path, limits.MaxBlankLinesPerFile+1, limits.MaxBlankLinesPerFile)
	if code != exitNoInput || !strings.Contains(errs, want) {
		t.Errorf("load: exit %d, want %d and %q\nstderr:\n%s", code, exitNoInput, want, errs)
	}
	if code, out, _ := runVerify(t, "query", "--db", db, "--format", "csv", "files"); code != exitOK || strings.Contains(out, "blank.jsonl.gz") {
		t.Errorf("load: the refused file is recorded (exit %d)\n%s", code, out)
	}
}

// TestLoadOntoTruncatedDatabase: a load onto a database cut short (in its
// header, in the middle, or by its last blocks) fails with exit 74 naming
// the database, and leaves the damaged file byte for byte as it was, so
// that whoever recovers it finds what the disk held.
func TestLoadOntoTruncatedDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := receiptgen.Generate(receiptgen.Config{Seed: 11, N: 400, Days: 2, Algs: receiptgen.Ed25519Only()}, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	first, more := filepath.Join(dir, "first.jsonl"), filepath.Join(dir, "more.jsonl")
	if err := os.WriteFile(first, []byte(strings.Join(lines[:300], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(more, []byte(strings.Join(lines[300:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(db, file string) (int, string) {
		var stdout, stderr bytes.Buffer
		args := []string{"verify", "load", "-q", "--db", db, "--keys", filepath.Join(dir, "keys", "jwks.json"), "--at=2026-12-01T00:00:00Z", file}
		code := run(args, io.LimitReader(nil, 0), &stdout, &stderr)
		return code, stderr.String()
	}
	whole := filepath.Join(t.TempDir(), "whole.duckdb")
	if code, stderr := load(whole, first); code != exitOK {
		t.Fatalf("first load: exit %d\n%s", code, stderr)
	}
	good, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	const block = 262144 // DuckDB's block; the file is 3 headers of 4 KiB, then blocks
	size := len(good)
	for _, cut := range []int{4096, 12289, size / 2, size - block, size - 1} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "audit.duckdb")
			damaged := good[:cut]
			if err := os.WriteFile(db, damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			code, stderr := load(db, more)
			if code != exitIOErr || !strings.Contains(stderr, db) {
				t.Errorf("exit %d, want %d naming %s\nstderr:\n%s", code, exitIOErr, db, stderr)
			}
			after, err := os.ReadFile(db)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, damaged) {
				t.Errorf("the damaged database changed: %d bytes before, %d after", len(damaged), len(after))
			}
		})
	}
}
