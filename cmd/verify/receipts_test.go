package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReceiptsExitCodes pins the documented exit codes of `verify receipts`.
func TestReceiptsExitCodes(t *testing.T) {
	dir := "../../testdata/receipts/"
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := "--at=2026-07-01T00:00:00Z"
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"receipts", "--keys", dir + "asqav-06-mldsa65-payload-prod/jwks.json", at, dir + "asqav-06-mldsa65-payload-prod/receipt.json"}, exitOK},
		{[]string{"receipts", "--keys", dir + "asqav-04-tamper-sig/jwks.json", at, dir + "asqav-04-tamper-sig/receipt.json"}, exitRejected},
		{[]string{"receipts", at, dir + "asqav-06-mldsa65-payload-prod/receipt.json"}, exitIncomplete},
		{[]string{"receipts", at, bad}, exitRejected},
		{[]string{"receipts", at, filepath.Join(tmp, "missing.jsonl")}, exitNoInput},
		{[]string{"receipts", "--format", "xml", at, bad}, exitUsage},
		{[]string{"receipts", "--at", "yesterday", bad}, exitUsage},
		{[]string{"receipts", "--workers", "-1", at, bad}, exitUsage},
		{[]string{"receipts", "--workers", "100000", at, bad}, exitUsage},
		{[]string{"receipts", "--workers", "1", at, bad}, exitRejected},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		if got := run(append([]string{"verify"}, c.args...), io.LimitReader(nil, 0), &out, &errOut); got != c.want {
			t.Errorf("%v: exit %d, want %d\nstdout: %s\nstderr: %s", c.args, got, c.want, out.String(), errOut.String())
		}
	}
}

// TestTextOutputEscapesReceiptText: a receipt whose tool name and chain
// link hold an escape sequence, line breaks, a bidirectional override and
// a byte that is not UTF-8 (in a file whose name holds a line break) is
// reported on one line, with those characters written as escapes: nothing
// a receipt holds can recolour the auditor's terminal or forge a line of
// output.
func TestTextOutputEscapesReceiptText(t *testing.T) {
	demo, err := os.ReadFile("../../testdata/demo/receipts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	line := demo[:bytes.IndexByte(demo, '\n')]
	hostile := `evil\u001b[31mRED\r\nx.jsonl:2: PASS \u202e\u009b2J`
	line = regexp.MustCompile(`"tool_name":"[^"]*"`).ReplaceAll(line, []byte(`"tool_name":"`+hostile+`"`))
	line = regexp.MustCompile(`"previousReceiptHash":"[^"]*"`).ReplaceAll(line, []byte(`"previousReceiptHash":"`+hostile+`"`))
	path := filepath.Join(t.TempDir(), "a\nb.jsonl")
	if err := os.WriteFile(path, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	args := []string{"verify", "receipts", "--keys=../../testdata/demo/keys/jwks.json", "--schemas=../../testdata/demo/schemas", "--at=2026-12-01T00:00:00Z", path}
	if got := run(args, io.LimitReader(nil, 0), &out, &errOut); got != exitRejected {
		t.Fatalf("exit %d\n%s\n%s", got, &out, &errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "summary: ") {
		t.Fatalf("want one line for the receipt, then the summary:\n%s", &out)
	}
	for _, want := range []string{`a\nb.jsonl:1: FAIL`, `evil\x1b[31mRED\r\nx.jsonl:2: PASS \u202e\u009b2J`} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("line lacks %q:\n%s", want, lines[0])
		}
	}
	for _, r := range out.String() {
		if (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) || r == '\u202e' {
			t.Fatalf("output holds %U:\n%q", r, &out)
		}
	}
}

// TestWalkNamesFilesPassedOver: a directory walk reads receipt files only,
// and names on stderr the files it passed over, so that a misnamed receipt
// file is not left out unseen.
func TestWalkNamesFilesPassedOver(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	receipt, err := os.ReadFile("../../testdata/receipts/asqav-06-mldsa65-payload-prod/receipt.json")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"sub/a.json": receipt, "notes.txt": []byte("hi"), "receipts.txt": receipt}
	for i := range 5 {
		files[fmt.Sprintf("sub/x%d.csv", i)] = nil
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"verify", "receipts", "--keys", "../../testdata/receipts/asqav-06-mldsa65-payload-prod/jwks.json", "--at=2026-07-01T00:00:00Z", dir}, strings.NewReader(""), &stdout, &stderr)
	if code != exitOK || !strings.Contains(stdout.String(), "1 receipts verified (1 pass") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, &stdout, &stderr)
	}
	want := fmt.Sprintf("verify: %s: 7 file(s) not read (a walk reads *.json, *.jsonl, *.ndjson and *.log, their logrotate names (.1, -YYYYMMDD) and the same with .gz; --include GLOB reads others): %s, %s, %s, %s, %s and 2 more\n",
		dir, filepath.Join(dir, "notes.txt"), filepath.Join(dir, "receipts.txt"), filepath.Join(dir, "sub/x0.csv"), filepath.Join(dir, "sub/x1.csv"), filepath.Join(dir, "sub/x2.csv"))
	if stderr.String() != want {
		t.Errorf("stderr:\n%q\nwant\n%q", &stderr, want)
	}
}

// TestWalkGoesOnPastUnlistableDirectory: a directory the walk cannot list
// becomes an unreadable input (exit 66 once the rest is verified) rather
// than ending the run before anything is verified. Listing fails for root
// only in ways a test cannot set up, so the walk's visit is called as
// filepath.WalkDir calls it on a read error.
func TestWalkGoesOnPastUnlistableDirectory(t *testing.T) {
	t.Parallel()
	var w dirWalk
	denied := &fs.PathError{Op: "open", Path: "archive/2026-11", Err: fs.ErrPermission}
	if err := w.visit("archive/2026-11", nil, denied); err != nil {
		t.Fatalf("visit stops the walk: %v", err)
	}
	if len(w.srcs) != 1 || w.srcs[0].Name != "archive/2026-11" {
		t.Fatalf("sources %+v", w.srcs)
	}
	if _, err := w.srcs[0].Open(); err != denied {
		t.Errorf("source opens with %v, want %v", err, denied)
	}
}

// TestStdinCopyErrors: standard input is copied to a temporary file
// before it is verified. A read error there is the input's (exit 66); a
// temporary directory that cannot be written is the machine's (exit 74),
// as it is for the spool of results. Not parallel: it sets TMPDIR.
func TestStdinCopyErrors(t *testing.T) {
	receipt, err := os.ReadFile("../../testdata/receipts/asqav-06-mldsa65-payload-prod/receipt.json")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"verify", "receipts", "--at=2026-07-01T00:00:00Z", "-"}
	var stdout, stderr bytes.Buffer
	broken := io.MultiReader(bytes.NewReader(receipt), iotest.ErrReader(errors.New("stdin went away")))
	if code := run(args, broken, &stdout, &stderr); code != exitNoInput || !strings.Contains(stderr.String(), "stdin: stdin went away") {
		t.Errorf("read error: exit %d, want %d\nstderr: %s", code, exitNoInput, &stderr)
	}
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	stderr.Reset()
	if code := run(args, bytes.NewReader(receipt), &stdout, &stderr); code != exitIOErr || !strings.Contains(stderr.String(), "stdin: copying it to a temporary file") {
		t.Errorf("no temporary directory: exit %d, want %d\nstderr: %s", code, exitIOErr, &stderr)
	}
}

// TestGzipBombRefused: a gzip file that expands far beyond its size (a
// few kilobytes that would be megabytes; a gzip of blank lines is a
// thousand times its size) is refused part way with an error naming the
// limit, and the run goes on with the next file: exit 66 for receipts and
// load, the next file verified and loaded.
func TestGzipBombRefused(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	// At the best level the 4 MiB compress to about 6 KB on any Go, so the
	// bound is the 1 MiB floor (the default level's size varies by Go
	// version: 25 KB on Go 1.27, a 2.5 MB bound).
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(bytes.Repeat(append(bytes.Repeat([]byte("x"), 4095), '\n'), 1024)) // 4 MiB
	zw.Close()
	bomb := filepath.Join(dir, "a-bomb.jsonl.gz")
	next := filepath.Join(dir, "b-next.jsonl")
	if err := os.WriteFile(bomb, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(next, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runVerify(t, "receipts", "--at=2026-12-01T00:00:00Z", dir)
	if code != exitNoInput || !strings.Contains(stdout, "gzip content larger than 1048576 bytes") || !strings.Contains(stdout, "b-next.jsonl:1:") {
		t.Errorf("receipts: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, _, stderr = runVerify(t, "load", "--db", filepath.Join(t.TempDir(), "a.duckdb"), dir)
	if code != exitNoInput || !strings.Contains(stderr, "a-bomb.jsonl.gz: unreadable, not loaded") || !strings.Contains(stderr, "b-next.jsonl: 1 accepted") {
		t.Errorf("load: exit %d\nstderr:\n%s", code, stderr)
	}
}
