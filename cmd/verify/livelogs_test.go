package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/testenv"
)

// liveCorpus generates n receipts of one day and returns their lines and
// the key file.
func liveCorpus(t *testing.T, seed uint64, n int) (lines []string, keys string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := receiptgen.Generate(receiptgen.Config{Seed: seed, N: n, Days: 1, Algs: receiptgen.Ed25519Only()}, receiptgen.DirSink(dir)); err != nil {
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

// dbRows is what a database holds of its receipts and files, for tests
// that compare two of them: one text line per receipt and per files row.
func dbRows(t *testing.T, path string) (receipts string, contentBytes []int64) {
	t.Helper()
	db, err := analytics.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.SQL().Query(`SELECT line, line_sha256, verdict, reasons::VARCHAR FROM receipts ORDER BY line`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var line int64
		var sha, verdict, reasons string
		if err := rows.Scan(&line, &sha, &verdict, &reasons); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d %s %s %s\n", line, sha, verdict, reasons)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	frows, err := db.SQL().Query(`SELECT content_bytes FROM files ORDER BY content_bytes`)
	if err != nil {
		t.Fatal(err)
	}
	defer frows.Close()
	for frows.Next() {
		var n int64
		if err := frows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		contentBytes = append(contentBytes, n)
	}
	return b.String(), contentBytes
}

// TestAuditWhileAppended: a producer appends to its log, half a line at a
// time, while audit reads it. Every run exits as a run after the writes
// stopped would (0), loads the log up to a line end within the size it
// had when opened, and holds the same rows as a run over exactly that
// content: the lines appended during the run are the next run's, and a
// half-written last line is not an unreadable line.
func TestAuditWhileAppended(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	lines, keys := liveCorpus(t, 9, 2000)
	dir := t.TempDir()
	log := filepath.Join(dir, "logs", "agent.jsonl")
	writeFile(t, log, []byte(strings.Join(lines[:100], "")))
	next := 100 // the next line to append
	for try := range 4 {
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			for ; next < len(lines); next++ {
				select {
				case <-stop:
					return
				default:
				}
				l := lines[next]
				f.Write([]byte(l[:len(l)/2]))
				time.Sleep(time.Millisecond)
				f.Write([]byte(l[len(l)/2:]))
				time.Sleep(time.Millisecond)
			}
		}()
		db := filepath.Join(dir, fmt.Sprintf("live%d.duckdb", try))
		code, stdout, stderr := runVerify(t, "audit", "--db", db, "--out", filepath.Join(dir, "report"), "--keys", keys, "--at=2026-12-01T00:00:00Z", filepath.Join(dir, "logs"))
		close(stop)
		<-wrote
		f.Close()
		if code != exitOK || strings.Contains(stdout, ", 1 unreadable line(s)") {
			t.Fatalf("try %d: exit %d\nstdout: %s\nstderr: %s", try, code, stdout, stderr)
		}
		got, sizes := dbRows(t, db)
		t.Logf("try %d: %d bytes loaded of %d", try, sizes, next)
		if len(sizes) != 1 {
			t.Fatalf("try %d: files rows of %v bytes", try, sizes)
		}
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		// The reference: the same content, the writes stopped.
		ref := filepath.Join(dir, fmt.Sprintf("ref%d", try), "logs", "agent.jsonl")
		writeFile(t, ref, data[:sizes[0]])
		refDB := filepath.Join(dir, fmt.Sprintf("ref%d.duckdb", try))
		if code, stdout, stderr := runVerify(t, "audit", "--db", refDB, "--out", filepath.Join(dir, "refreport"), "--keys", keys, "--at=2026-12-01T00:00:00Z", filepath.Dir(ref)); code != exitOK {
			t.Fatalf("reference: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		want, _ := dbRows(t, refDB)
		if got != want || got == "" {
			t.Errorf("try %d: the rows differ from a run after the writes stopped", try)
		}
	}
}

// TestFirstLineEditRefused: a loaded file is found by its path and
// content whatever its first line reads: an edit of line 1 is refused with
// exit 66 naming that line and nothing is stored twice, while a log
// truncated and begun again under the same name (copytruncate) is new.
func TestFirstLineEditRefused(t *testing.T) {
	t.Parallel()
	lines, keys := liveCorpus(t, 10, 30)
	dir := t.TempDir()
	log := filepath.Join(dir, "agent.jsonl")
	db := filepath.Join(dir, "audit.duckdb")
	load := func(want int, wantLine string) {
		t.Helper()
		code, _, stderr := runVerify(t, "load", "--db", db, "--keys", keys, "--at=2026-12-01T00:00:00Z", log)
		if code != want || !strings.Contains(stderr, wantLine) {
			t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", code, want, wantLine, stderr)
		}
	}
	writeFile(t, log, []byte(strings.Join(lines[:10], "")))
	load(exitOK, ": 10 accepted, 0 rejected")
	edited := append([]string{}, lines[:12]...)
	edited[0] = strings.Replace(edited[0], `"`, `  "`, 1) // the same JSON, other bytes
	writeFile(t, log, []byte(strings.Join(edited, "")))
	load(exitNoInput, "verify: load: "+log+": refused, not loaded: line 1 differs from the line loaded before from "+log)
	if got, _ := dbRows(t, db); strings.Count(got, "\n") != 10 {
		t.Errorf("%d receipts stored, want 10:\n%s", strings.Count(got, "\n"), got)
	}
	// copytruncate: the old content went to agent.jsonl.1, the log
	// begins again.
	writeFile(t, log, []byte(strings.Join(lines[10:15], "")))
	load(exitOK, ": 5 accepted, 0 rejected")
	if got, _ := dbRows(t, db); strings.Count(got, "\n") != 15 {
		t.Errorf("%d receipts stored, want 15", strings.Count(got, "\n"))
	}
}

// TestQuietExpiredBaseline: under -q, which silences warnings, expired
// baseline entries are still said, in one stderr line.
func TestQuietExpiredBaseline(t *testing.T) {
	t.Parallel()
	lines, keys := liveCorpus(t, 11, 6)
	dir := t.TempDir()
	log := filepath.Join(dir, "agent.jsonl")
	writeFile(t, log, []byte(strings.Join(lines, "")))
	base := filepath.Join(dir, "baseline.toml")
	writeFile(t, base, []byte("[[suppress]]\ntool = \"files.write\"\nreason = \"known\"\nexpires = 2026-11-15\n\n[[suppress]]\ntool = \"files.read\"\nreason = \"known\"\nexpires = 2026-11-16\n"))
	args := []string{"audit", "--db", filepath.Join(dir, "audit.duckdb"), "--out", filepath.Join(dir, "report"), "--keys", keys, "--at=2026-12-01T00:00:00Z", "--baseline", base, log}
	_, _, stderr := runVerify(t, append([]string{args[0], "-q"}, args[1:]...)...)
	expired := regexp.MustCompile(`(?m)^verify: baseline: 2 entr\(ies\) expired, their findings count again: entry 1 \(.*\) expired on 2026-11-15; entry 2 \(.*\) expired on 2026-11-16$`)
	if !expired.MatchString(stderr) || strings.Count(stderr, "expired") != 3 {
		t.Errorf("-q: stderr lacks one line for the expired entries:\n%s", stderr)
	}
	_, _, stderr = runVerify(t, args...)
	if strings.Count(stderr, "verify: baseline: entry ") != 2 {
		t.Errorf("without -q: want a line per expired entry:\n%s", stderr)
	}
}

// TestRedeliveryStoredOnce: a line already stored that arrives again
// inside another file (an incoming directory that re-sends a batch) is
// counted as re-delivered: not stored again, not judged a replay, out of
// the verification counts; the same within one run. A line repeated
// inside one file is still a replay.
func TestRedeliveryStoredOnce(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	lines, keys := liveCorpus(t, 12, 24)
	dir := t.TempDir()
	at := "--at=2026-12-01T00:00:00Z"
	db := filepath.Join(dir, "audit.duckdb")
	log := filepath.Join(dir, "logs", "agent.jsonl")
	writeFile(t, log, []byte(strings.Join(lines[:10], "")))
	if code, _, stderr := runVerify(t, "load", "--db", db, "--keys", keys, at, log); code != exitOK {
		t.Fatalf("load: exit %d\n%s", code, stderr)
	}
	batch := filepath.Join(dir, "incoming", "batch.jsonl")
	writeFile(t, batch, []byte(strings.Join(lines[4:15], "")))
	code, stdout, stderr := runVerify(t, "audit", "--db", db, "--out", filepath.Join(dir, "report"), "--keys", keys, at, filepath.Dir(batch))
	if code != exitOK {
		t.Errorf("re-sent batch: exit %d, want 0\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	for _, want := range []string{
		": 5 receipts (5 pass, 0 fail, 0 incomplete)",
		"re-delivered: " + batch + ": 6 line(s) stored already from another file",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if want := "verify: load: " + batch + ": 5 accepted, 0 rejected; 6 re-delivered"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	storedOnce := func(db string, want int) {
		t.Helper()
		got, _ := dbRows(t, db)
		rows := strings.Split(strings.TrimSpace(got), "\n")
		if len(rows) != want {
			t.Errorf("%d receipts stored, want %d:\n%s", len(rows), want, got)
		}
		seen := map[string]bool{}
		for _, r := range rows {
			f := strings.Fields(r)
			if seen[f[1]] || f[2] != "PASS" {
				t.Errorf("stored twice or not PASS: %s", r)
			}
			seen[f[1]] = true
		}
		if _, out, _ := runVerify(t, "query", "--db", db, "-f", "jsonl", "replays"); out != "" {
			t.Errorf("replays:\n%s", out)
		}
	}
	storedOnce(db, 15)
	if _, out, _ := runVerify(t, "query", "--db", db, "-f", "csv", "files"); !strings.Contains(out, batch+",") || !strings.Contains(out, ",11,5,0,") || !strings.Contains(out, ",5,6\r\n") {
		t.Errorf("the batch's files row does not say 11 lines, 5 accepted, 6 re-delivered:\n%s", out)
	}
	md := func() string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, "report", "2026-11-01", "summary.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if !strings.Contains(md(), "batch.jsonl | `") || !strings.Contains(md(), "| 11 | 5 | 0 | 6 | 5 |") {
		t.Errorf("summary.md does not list the batch with its re-delivered lines:\n%s", md())
	}
	// explain --db of a re-delivered line explains the stored one; show
	// says where to look.
	code, stdout, stderr = runVerify(t, "explain", "--db", db, batch+":1")
	if code != exitOK || !strings.HasPrefix(stdout, log+":5\n") || !strings.Contains(stderr, "verify: explain: "+batch+":1 re-delivers "+log+":5, stored from there") {
		t.Errorf("explain a re-delivered line: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, _, stderr = runVerify(t, "show", "--db", db, batch+":1")
	if code != exitRejected || !strings.Contains(stderr, "re-delivered 6 line(s) stored from another file, not stored again; verify explain --db") {
		t.Errorf("show a re-delivered line: exit %d\nstderr: %s", code, stderr)
	}
	if code, stdout, _ := runVerify(t, "show", "--db", db, batch+":7"); code != exitOK || stdout != lines[10] {
		t.Errorf("show the batch's own line 7: exit %d\n%s", code, stdout)
	}

	// A batch wholly re-delivered stores nothing; audit reports the day
	// of the receipts it holds, in the run that loads it and in the next.
	again := filepath.Join(dir, "again", "batch.jsonl")
	writeFile(t, again, []byte(lines[9]+lines[2]+lines[7]))
	for run := range 2 {
		code, stdout, stderr := runVerify(t, "audit", "--db", db, "--out", filepath.Join(dir, "report"), "--keys", keys, at, again)
		if code != exitOK || !strings.Contains(stdout, "\n2026-11-01        15 ") {
			t.Errorf("wholly re-delivered, run %d: exit %d, want 0 and the day of its receipts\nstdout: %s\nstderr: %s", run, code, stdout, stderr)
		}
	}
	storedOnce(db, 15)
	if !strings.Contains(md(), "| 3 | 0 | 0 | 3 | 0 |") {
		t.Errorf("summary.md does not list the batch wholly re-delivered:\n%s", md())
	}

	// Two new files sharing lines, in one run: the second's shared lines
	// are re-delivered.
	db2 := filepath.Join(dir, "one-run.duckdb")
	other := filepath.Join(dir, "two", "b.jsonl")
	writeFile(t, filepath.Join(dir, "two", "a.jsonl"), []byte(strings.Join(lines[:12], "")))
	writeFile(t, other, []byte(strings.Join(lines[8:20], "")))
	code, _, stderr = runVerify(t, "load", "--db", db2, "--keys", keys, at, filepath.Dir(other))
	if code != exitOK || !strings.Contains(stderr, other+": 8 accepted, 0 rejected; 4 re-delivered") {
		t.Errorf("one run: exit %d\n%s", code, stderr)
	}
	storedOnce(db2, 20)

	// A line a growing log repeats is the same receipt delivered again
	// (PASS, a low duplicate row), as in the log loaded whole, not a
	// re-delivery of its own earlier part.
	grown := filepath.Join(dir, "grown.jsonl")
	whole := filepath.Join(dir, "whole", "grown.jsonl")
	writeFile(t, whole, []byte(strings.Join(lines[:4], "")+lines[1]+lines[4]))
	writeFile(t, grown, []byte(strings.Join(lines[:4], "")))
	dbGrown, dbWhole := filepath.Join(dir, "grown.duckdb"), filepath.Join(dir, "whole.duckdb")
	runVerify(t, "load", "--db", dbGrown, "--keys", keys, at, grown)
	writeFile(t, grown, []byte(strings.Join(lines[:4], "")+lines[1]+lines[4]))
	code, _, stderr = runVerify(t, "load", "--db", dbGrown, "--keys", keys, at, grown)
	if code != exitOK || strings.Contains(stderr, "re-delivered") {
		t.Errorf("grown log: exit %d\n%s", code, stderr)
	}
	runVerify(t, "load", "--db", dbWhole, "--keys", keys, at, whole)
	if g, w := func() string { r, _ := dbRows(t, dbGrown); return r }(), func() string { r, _ := dbRows(t, dbWhole); return r }(); g != w || strings.Count(g, "\n") != 6 || strings.Contains(g, "FAIL") {
		t.Errorf("the log loaded as it grew:\n%s\nloaded whole:\n%s", g, w)
	}
	for _, db := range []string{dbGrown, dbWhole} {
		if _, out, _ := runVerify(t, "query", "--db", db, "-f", "csv", "replays"); !oneDuplicateRow(out, "grown.jsonl,5,") {
			t.Errorf("%s: replays, want one low duplicate row, line 5 repeating line 2:\n%s", db, out)
		}
	}

	// A line repeated inside one file is the same receipt delivered
	// again: PASS, a low duplicate row, not a re-delivery.
	db3 := filepath.Join(dir, "replay.duckdb")
	twice := filepath.Join(dir, "twice.jsonl")
	writeFile(t, twice, []byte(strings.Join(lines[:3], "")+lines[1]))
	code, stdout, stderr = runVerify(t, "audit", "--db", db3, "--out", filepath.Join(dir, "report3"), "--keys", keys, at, twice)
	if code != exitOK || strings.Contains(stdout, "re-delivered") {
		t.Errorf("a line twice in one file: exit %d, want %d\nstdout: %s\nstderr: %s", code, exitOK, stdout, stderr)
	}
	if _, out, _ := runVerify(t, "query", "--db", db3, "-f", "csv", "replays"); !oneDuplicateRow(out, "twice.jsonl,4,") {
		t.Errorf("a line twice in one file: replays, want one low duplicate row, line 4 repeating line 2:\n%s", out)
	}
}

// oneDuplicateRow says whether the CSV of the replays query is one low
// duplicate row whose receipt is at (source and line, as "file.jsonl,N,").
func oneDuplicateRow(csv, at string) bool {
	rows := strings.Split(strings.TrimSpace(csv), "\n")[1:]
	return len(rows) == 1 && strings.HasPrefix(rows[0], "replays,low,") && strings.Contains(rows[0], ",duplicate,") && strings.Contains(rows[0], at)
}

// TestLateDeliveryReportedAgain: audit reports again every day reported
// before that a late file adds receipts to, and names it on stdout, with
// --day of another night too.
func TestLateDeliveryReportedAgain(t *testing.T) {
	t.Parallel()
	first, keys1 := liveCorpus(t, 14, 12)
	late, keys2 := liveCorpus(t, 15, 5)
	later, keys3 := liveCorpus(t, 16, 3)
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	db := filepath.Join(dir, "audit.duckdb")
	out := filepath.Join(dir, "report")
	audit := func(at string, extra ...string) (int, string, string) {
		t.Helper()
		args := []string{"audit", "--db", db, "--out", out, "--keys", keys1, "--keys", keys2, "--keys", keys3, "--at", at}
		return runVerify(t, append(append(args, extra...), logs)...)
	}
	summary := func() string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, "2026-11-01", "summary.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	writeFile(t, filepath.Join(logs, "a.jsonl"), []byte(strings.Join(first, "")))
	if code, stdout, stderr := audit("2026-11-02T01:10:00Z"); code != exitOK || !strings.Contains(summary(), "Receipts of the day: **12**") {
		t.Fatalf("first night: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	writeFile(t, filepath.Join(logs, "b.jsonl"), []byte(strings.Join(late, "")))
	code, stdout, stderr := audit("2026-11-03T01:10:00Z")
	if code != exitOK || !strings.Contains(stdout, "late delivery: 5 receipt(s) added to 2026-11-01, reported at 2026-11-02T01:10:00Z") || !strings.Contains(summary(), "Receipts of the day: **17**") {
		t.Errorf("late file, no --day: exit %d, want the day reported again\nstdout: %s\nstderr: %s\nsummary.md: %s", code, stdout, stderr, summary())
	}
	writeFile(t, filepath.Join(logs, "c.jsonl"), []byte(strings.Join(later, "")))
	code, stdout, stderr = audit("2026-11-04T01:10:00Z", "--day", "2026-11-03")
	want := "late delivery: 3 receipt(s) added to 2026-11-01, reported at 2026-11-03T01:10:00Z; reported again: " + filepath.Join(out, "2026-11-01", "summary.md")
	if code != exitEmpty || !strings.Contains(stdout, want) || !strings.Contains(summary(), "Receipts of the day: **20**") {
		t.Errorf("late file, --day of another night: exit %d, want %d and %q\nstdout: %s\nstderr: %s", code, exitEmpty, want, stdout, stderr)
	}
}

// TestLateForgedBackfill: a day reported during the day (its receipts all
// loaded before it ended) gets a backfill two nights later holding one
// forged receipt. The night names the late delivery on stdout under -q,
// reports the day again, lists it in the day's summary.md and
// manifest.json, and fails on the forged receipt.
func TestLateForgedBackfill(t *testing.T) {
	t.Parallel()
	first, keys1 := liveCorpus(t, 14, 12)
	late, keys2 := liveCorpus(t, 15, 4)
	forged := strings.Replace(late[1], `"tool_name":"`, `"tool_name":"x`, 1)
	if forged == late[1] {
		t.Fatal("no tool_name to forge")
	}
	late[1] = forged
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	db := filepath.Join(dir, "audit.duckdb")
	out := filepath.Join(dir, "report")
	audit := func(at, day string) (int, string, string) {
		t.Helper()
		return runVerify(t, "audit", "-q", "--db", db, "--out", out, "--keys", keys1, "--keys", keys2, "--at", at, "--day", day, logs)
	}
	writeFile(t, filepath.Join(logs, "a.jsonl"), []byte(strings.Join(first, "")))
	if code, stdout, stderr := audit("2026-11-01T23:59:59Z", "2026-11-01"); code != exitOK {
		t.Fatalf("the day reported before it ended: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	writeFile(t, filepath.Join(logs, "b.jsonl"), []byte(strings.Join(late, "")))
	code, stdout, stderr := audit("2026-11-04T01:10:00Z", "2026-11-03")
	want := "late delivery: 4 receipt(s) added to 2026-11-01 (1 not PASS), reported at 2026-11-01T23:59:59Z; reported again: " + filepath.Join(out, "2026-11-01", "summary.md")
	if code != exitRejected || !strings.Contains(stdout, want) {
		t.Errorf("backfill with a forged receipt: exit %d, want %d and %q\nstdout: %s\nstderr: %s", code, exitRejected, want, stdout, stderr)
	}
	for name, want := range map[string]string{"summary.md": "## Late deliveries", "manifest.json": `"late_deliveries": [`} {
		b, err := os.ReadFile(filepath.Join(out, "2026-11-01", name))
		if err != nil || !strings.Contains(string(b), want) || !strings.Contains(string(b), "b.jsonl") {
			t.Errorf("%s of the late day does not list the late delivery (%v):\n%s", name, err, b)
		}
	}
}

// TestLateAfterVerifyReport: a day reported by verify report (not by an
// audit) is recorded as reported, so that a later load adding receipts to
// it names the late delivery; a report beside another reader of the
// database is written all the same, and says it could not be recorded.
func TestLateAfterVerifyReport(t *testing.T) {
	t.Parallel()
	first, keys1 := liveCorpus(t, 14, 12)
	late, keys2 := liveCorpus(t, 15, 5)
	dir := t.TempDir()
	db := filepath.Join(dir, "audit.duckdb")
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	writeFile(t, a, []byte(strings.Join(first, "")))
	writeFile(t, b, []byte(strings.Join(late, "")))
	if code, stdout, stderr := runVerify(t, "load", "--db", db, "--keys", keys1, "--at", "2026-11-02T01:00:00Z", a); code != exitOK {
		t.Fatalf("load: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, stderr := runVerify(t, "report", "--db", db, "--day", "2026-11-01", "--out", filepath.Join(dir, "r"), "--at", "2026-11-02T01:10:00Z")
	if code != exitOK || stderr != "" {
		t.Fatalf("report: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, stderr = runVerify(t, "load", "-q", "--db", db, "--keys", keys1, "--keys", keys2, "--at", "2026-11-03T01:00:00Z", b)
	if want := "late delivery: 5 receipt(s) added to 2026-11-01, reported at 2026-11-02T01:10:00Z"; code != exitOK || !strings.Contains(stdout, want) {
		t.Errorf("load after verify report: exit %d, want %q\nstdout: %s\nstderr: %s", code, want, stdout, stderr)
	}

	reader, err := analytics.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	code, _, stderr = verifyProcess(t, "report", "--db", db, "--day", "2026-11-01", "--out", filepath.Join(dir, "r2"))
	if code != exitOK || !strings.Contains(stderr, "verify: 2026-11-01: the report is written but not recorded in the database") {
		t.Errorf("report beside a reader: exit %d, want %d and a note that it is not recorded\n%s", code, exitOK, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "r2", "summary.md")); err != nil {
		t.Errorf("report beside a reader: %v", err)
	}
}
