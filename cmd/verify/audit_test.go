package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/testenv"
)

// genAuditCorpus writes a small generated corpus (three days, planted
// anomalies) to a temporary directory.
func genAuditCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfg := receiptgen.Config{Seed: 4, N: 300, Rate: 0.05, Days: 3, Algs: receiptgen.Ed25519Only()}
	if _, err := receiptgen.Generate(cfg, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runVerify(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(append([]string{"verify"}, args...), strings.NewReader(""), &o, &e)
	checkStderrLines(t, args, e.String())
	return code, o.String(), e.String()
}

// checkStderrLines fails the test when a line of stderr does not begin
// "verify:", as the README promises of every diagnostic.
func checkStderrLines(t *testing.T, args []string, stderr string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "verify:") {
			t.Errorf("verify %s: a stderr line without the verify: prefix: %q", strings.Join(args, " "), l)
		}
	}
}

// TestAnalyticsExitCodes pins the exit codes of audit, query, report and
// export (serially: see TestExitCodes).
func TestAnalyticsExitCodes(t *testing.T) {
	corpus := genAuditCorpus(t)
	work := t.TempDir()
	db := filepath.Join(work, "audit.duckdb")
	keys := filepath.Join(corpus, "keys", "jwks.json")
	schemas := filepath.Join(corpus, "schemas")
	receipts := filepath.Join(corpus, "receipts.jsonl")
	file := filepath.Join(work, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(work, "missing.duckdb")
	out := func(name string) string { return filepath.Join(work, name) }
	audit := []string{"audit", "--keys", keys, "--schemas", schemas, "--at", "2026-12-01T00:00:00Z", "--db", db}

	tests := []struct {
		name string
		args []string
		want int
	}{
		{"audit findings", append(append([]string{}, audit...), "--out", out("r1"), receipts), exitRejected},
		{"audit again", append(append([]string{}, audit...), "--out", out("r1"), receipts), exitRejected},
		{"audit no-fail", append(append([]string{}, audit...), "--out", out("r2"), "--no-fail", receipts), exitOK},
		{"audit empty day", append(append([]string{}, audit...), "--out", out("r3"), "--day", "2026-10-01", receipts), exitEmpty},
		{"audit empty day no-fail", append(append([]string{}, audit...), "--out", out("r3"), "--day", "2026-10-01", "--no-fail", receipts), exitEmpty},
		{"audit no receipts", append(append([]string{}, audit...), "--out", out("r5"), file), exitEmpty},
		{"audit bad fail-on", append(append([]string{}, audit...), "--out", out("r6"), "--fail-on", "urgent", receipts), exitUsage},
		{"audit missing baseline", append(append([]string{}, audit...), "--out", out("r6"), "--baseline", filepath.Join(work, "nope.toml"), receipts), exitNoInput},
		{"audit bad format", append(append([]string{}, audit...), "--out", out("r6"), "--format", "xml", receipts), exitUsage},
		{"audit no path", audit, exitUsage},
		{"audit bad day", append(append([]string{}, audit...), "--day", "2026-13-01", receipts), exitUsage},
		{"audit missing input", append(append([]string{}, audit...), "--out", out("r4"), filepath.Join(work, "nope.jsonl")), exitNoInput},
		{"audit unwritable out", append(append([]string{}, audit...), "--out", filepath.Join(file, "x"), receipts), exitIOErr},

		{"query table", []string{"query", "--db", db, "collisions"}, exitOK},
		{"query csv after name", []string{"query", "--db", db, "drift", "--day", "2026-11-02", "--format", "csv"}, exitOK},
		{"query json", []string{"query", "--db", db, "-f", "json", "replays"}, exitOK},
		{"query no rows", []string{"query", "--db", db, "--day", "2026-10-01", "failures"}, exitOK},
		{"query unknown name", []string{"query", "--db", db, "nope"}, exitUsage},
		{"query no name", []string{"query", "--db", db}, exitUsage},
		{"query two names", []string{"query", "--db", db, "drift", "replays"}, exitUsage},
		{"query bad day", []string{"query", "--db", db, "--day", "yesterday", "drift"}, exitUsage},
		{"query bad format", []string{"query", "--db", db, "--format", "xml", "drift"}, exitUsage},
		{"query no db", []string{"query", "drift"}, exitUsage},
		{"query missing db", []string{"query", "--db", missing, "drift"}, exitNoInput},

		{"report findings", []string{"report", "--db", db, "--day", "2026-11-02", "--out", out("d2")}, exitRejected},
		{"report no-fail", []string{"report", "--db", db, "--day", "2026-11-02", "--out", out("d2"), "--no-fail"}, exitOK},
		{"report empty day", []string{"report", "--db", db, "--day", "2026-10-01", "--out", out("d0")}, exitEmpty},
		{"report empty day no-fail", []string{"report", "--db", db, "--day", "2026-10-01", "--out", out("d0"), "--no-fail"}, exitEmpty},
		{"report fail-on info empty day", []string{"report", "--db", db, "--day", "2026-10-01", "--out", out("d0"), "--fail-on", "info"}, exitEmpty},
		{"report bad at", []string{"report", "--db", db, "--day", "2026-11-02", "--out", out("d2"), "--at", "tomorrow"}, exitUsage},
		{"baseline", []string{"baseline", "--db", db, "--day", "2026-11-02"}, exitOK},
		{"baseline no day", []string{"baseline", "--db", db}, exitUsage},
		{"baseline missing db", []string{"baseline", "--db", missing, "--day", "2026-11-02"}, exitNoInput},
		{"baseline unwritable", []string{"baseline", "--db", db, "--day", "2026-11-02", "--out", filepath.Join(file, "x")}, exitIOErr},
		{"report no out", []string{"report", "--db", db, "--day", "2026-11-02"}, exitUsage},
		{"report no day", []string{"report", "--db", db, "--out", out("d2")}, exitUsage},
		{"report bad day", []string{"report", "--db", db, "--day", "2026-11-2", "--out", out("d2")}, exitUsage},
		{"report missing db", []string{"report", "--db", missing, "--day", "2026-11-02", "--out", out("d2")}, exitNoInput},
		{"report unwritable out", []string{"report", "--db", db, "--day", "2026-11-02", "--out", filepath.Join(file, "x")}, exitIOErr},

		{"export", []string{"export", "--db", db, "--parquet", out("pq")}, exitOK},
		{"export again", []string{"export", "--db", db, "--parquet", out("pq")}, exitOK},
		{"export no dir", []string{"export", "--db", db}, exitUsage},
		{"export missing db", []string{"export", "--db", missing, "--parquet", out("pq")}, exitNoInput},
		{"export unwritable", []string{"export", "--db", db, "--parquet", filepath.Join(file, "x")}, exitIOErr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, stdout, stderr := runVerify(t, tt.args...)
			if got != tt.want {
				t.Errorf("run(%q) = %d, want %d\nstdout:\n%s\nstderr:\n%s", tt.args, got, tt.want, stdout, stderr)
			}
			if got != exitOK && !strings.HasPrefix(stderr, "verify: ") {
				t.Errorf("stderr does not start with \"verify: \":\n%s", stderr)
			}
			if got == exitUsage && stdout != "" {
				t.Errorf("usage error wrote to stdout:\n%s", stdout)
			}
		})
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("query/report/export created the missing database")
	}
}

// TestAudit: audit loads, reports every day of the input and summarizes
// on stdout; a second run loads nothing and rewrites the same bytes.
func TestAudit(t *testing.T) {
	corpus := genAuditCorpus(t)
	work := t.TempDir()
	t.Chdir(work) // the default --db and --out are in the current directory
	args := []string{"audit", "--keys", filepath.Join(corpus, "keys", "jwks.json"), "--schemas", filepath.Join(corpus, "schemas"),
		"--at", "2026-12-01T00:00:00Z", filepath.Join(corpus, "receipts.jsonl")}
	code, stdout, stderr := runVerify(t, args...)
	if code != exitRejected {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{`^loaded 1 file\(s\) into verify-audit.duckdb \(0 already loaded, 0 unreadable\): 300 receipts`,
		`\nday +receipts +collisions +drift +replays +failures +rejects +completeness +gaps +below --fail-on\n2026-11-01 +\d+ +\d+ +\d+ +\d+ +\d+ +0 +0 +0 +\d+\n2026-11-02 .*\n2026-11-03 .*\ntotal +300 +\d+`,
		`\nby severity: \d+ high, 0 medium, \d+ low, \d+ info, 0 suppressed\nfindings on 3 of 3 day\(s\), at --fail-on high or above on 3; reports: report/YYYY-MM-DD/summary.md\nindex: report/index.md\n$`} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("stdout does not match %q:\n%s", want, stdout)
		}
	}
	first := map[string][]byte{}
	for _, day := range []string{"2026-11-01", "2026-11-02", "2026-11-03"} {
		for _, name := range []string{"summary.md", "manifest.json", "fingerprints.svg", "collisions.csv", "drift.jsonl", "replays.csv", "failures.csv"} {
			p := filepath.Join("report", day, name)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			first[p] = b
		}
	}
	code, stdout, _ = runVerify(t, args...)
	if code != exitRejected || !strings.Contains(stdout, "loaded 0 file(s) into verify-audit.duckdb (1 already loaded") {
		t.Errorf("second run: exit %d\n%s", code, stdout)
	}
	for p, b := range first {
		if again, _ := os.ReadFile(p); !bytes.Equal(again, b) {
			t.Errorf("%s differs on the second run", p)
		}
	}
}

// TestAuditUndated: an UndoLog export carries no issued_at, and a file of
// bad lines holds no receipt at all. Both count on the UTC day of their
// load, so audit reports that day: a replayed call or a bad line makes it
// exit 1 (it once exited 0 for both: no day, no report).
func TestAuditUndated(t *testing.T) {
	work := t.TempDir()
	const row = `{"session_id":"550e8400-e29b-41d4-a716-446655440000","step_index":0,"tool_name":"ping","args":{},"call_signature":"eb17211045db0ec2d3f0e8b0b10c984e889efe279a6c5eb2dca6085732ad1f61"}` + "\n"
	once, twice, garbage := filepath.Join(work, "once.jsonl"), filepath.Join(work, "twice.jsonl"), filepath.Join(work, "garbage.jsonl")
	for path, data := range map[string]string{once: row, twice: row + row, garbage: "{\"truncated\n"} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		input string
		want  int
	}{{once, exitOK}, {twice, exitRejected}, {garbage, exitRejected}} {
		out := filepath.Join(work, "report-"+filepath.Base(tt.input))
		code, stdout, stderr := runVerify(t, "audit", "--db", filepath.Join(work, filepath.Base(tt.input)+".duckdb"), "--out", out, tt.input)
		if code != tt.want {
			t.Errorf("%s: exit %d, want %d\n%s%s", tt.input, code, tt.want, stdout, stderr)
		}
		if !strings.Contains(stdout, "report: "+out+string(filepath.Separator)) {
			t.Errorf("%s: no report written:\n%s", tt.input, stdout)
		}
	}
}

// TestAuditFailOn: on archives with no planted anomaly, audit exits 0 at
// the default --fail-on and lists the known collisions at info; --fail-on
// info brings back the exit 1 of every finding.
func TestAuditFailOn(t *testing.T) {
	for _, seed := range []uint64{5, 6} {
		dir := t.TempDir()
		cfg := receiptgen.Config{Seed: seed, N: 200, Rate: 0, Days: 3, Algs: receiptgen.Ed25519Only()}
		if _, err := receiptgen.Generate(cfg, receiptgen.DirSink(dir)); err != nil {
			t.Fatal(err)
		}
		work := t.TempDir()
		args := []string{"audit", "--keys", filepath.Join(dir, "keys", "jwks.json"), "--schemas", filepath.Join(dir, "schemas"),
			"--at", "2026-12-01T00:00:00Z", "--db", filepath.Join(work, "a.duckdb"), "--out", filepath.Join(work, "r"), filepath.Join(dir, "receipts.jsonl")}
		code, stdout, stderr := runVerify(t, args...)
		if code != exitOK || !strings.Contains(stdout, "\nby severity: 0 high, 0 medium, ") {
			t.Errorf("seed %d: exit %d\n%s%s", seed, code, stdout, stderr)
		}
		csv, err := os.ReadFile(filepath.Join(work, "r", "2026-11-01", "collisions.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(csv), "\r\ncollisions,info,"); n == 0 || n != strings.Count(string(csv), "\r\n")-1 {
			t.Errorf("seed %d: collisions not all at info:\n%s", seed, csv)
		}
		if code, _, _ := runVerify(t, append([]string{args[0], "--fail-on", "info"}, args[1:]...)...); code != exitRejected {
			t.Errorf("seed %d: --fail-on info: exit %d", seed, code)
		}
	}
}

// TestBaselineCommand: a starting baseline written from a day accepts its
// tool-schema findings, so the same day reports them as suppressed; the
// failed receipts of the day still fail it.
func TestBaselineCommand(t *testing.T) {
	corpus := genAuditCorpus(t)
	work := t.TempDir()
	db := filepath.Join(work, "a.duckdb")
	audit := []string{"audit", "--keys", filepath.Join(corpus, "keys", "jwks.json"), "--schemas", filepath.Join(corpus, "schemas"),
		"--at", "2026-12-01T00:00:00Z", "--db", db, "--out", filepath.Join(work, "r"), filepath.Join(corpus, "receipts.jsonl")}
	if code, stdout, stderr := runVerify(t, audit...); code != exitRejected {
		t.Fatalf("audit: exit %d\n%s%s", code, stdout, stderr)
	}
	base := filepath.Join(work, "baseline.toml")
	code, stdout, stderr := runVerify(t, "baseline", "--db", db, "--day", "2026-11-03", "--out", base)
	if code != exitOK || stdout != "" || !regexp.MustCompile(`^verify: baseline: [1-9]\d* entr\(ies\) accepting \d+ row\(s\) of 2026-11-03`).MatchString(stderr) {
		t.Fatalf("baseline: exit %d\n%s%s", code, stdout, stderr)
	}
	report := []string{"report", "--db", db, "--day", "2026-11-03", "--out", filepath.Join(work, "d"), "--baseline", base}
	code, stdout, _ = runVerify(t, append(report, "--at", "2026-11-04T00:00:00Z")...)
	m := regexp.MustCompile(`severity: (\d+) high, 0 medium, 0 low, \d+ info, ([1-9]\d*) suppressed`).FindStringSubmatch(stdout)
	if code != exitRejected || m == nil {
		t.Fatalf("report with the baseline: exit %d\n%s", code, stdout)
	}
	failures, _ := os.ReadFile(filepath.Join(work, "d", "failures.csv"))
	replays, _ := os.ReadFile(filepath.Join(work, "d", "replays.csv"))
	if high := strings.Count(string(failures), "\r\nfailures,high,") + strings.Count(string(replays), "\r\nreplays,high,"); fmt.Sprint(high) != m[1] {
		t.Errorf("%s high rows left, want the %d failures and replays", m[1], high)
	}
	// At the entries' expiry (90 days after the day) they warn and suppress nothing.
	code, stdout, stderr = runVerify(t, append(report, "--at", "2027-02-01T00:00:00Z")...)
	if code != exitRejected || !strings.Contains(stdout, " 0 suppressed\n") || !strings.Contains(stderr, "verify: baseline: entry 1 (tool ") {
		t.Errorf("report after expiry: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestAuditAgreesDayByDay: the demo archive split into a file per day and
// audited in one run, one run per day, or in a run over all files after a
// run over the first three (as an interrupted nightly job is run again),
// writes byte-identical reports: nonce replays and chains across days are
// judged against the database, not the run. Serial: see TestExitCodes.
func TestAuditAgreesDayByDay(t *testing.T) {
	testenv.Long(t)
	demo := filepath.Join("..", "..", "testdata", "demo")
	data, err := os.ReadFile(filepath.Join(demo, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	in := t.TempDir()
	byDay := map[string]string{}
	var files []string
	for _, line := range strings.SplitAfter(string(data), "\n") {
		i := strings.Index(line, `"issued_at":"`)
		if i < 0 {
			continue
		}
		day := line[i+len(`"issued_at":"`):][:10]
		if _, ok := byDay[day]; !ok {
			files = append(files, filepath.Join(in, day+".jsonl"))
		}
		byDay[day] += line
	}
	for day, text := range byDay {
		if err := os.WriteFile(filepath.Join(in, day+".jsonl"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	work := t.TempDir()
	audit := func(db, out string, paths ...string) {
		t.Helper()
		args := append([]string{"audit", "--keys", filepath.Join(demo, "keys", "jwks.json"), "--schemas", filepath.Join(demo, "schemas"),
			"--at", "2026-11-20T00:00:00Z", "--no-fail", "--db", filepath.Join(work, db), "--out", filepath.Join(work, out)}, paths...)
		if code, _, stderr := runVerify(t, args...); code != exitOK {
			t.Fatalf("audit %v: exit %d\n%s", paths, code, stderr)
		}
	}
	audit("one.duckdb", "one", files...)
	for _, f := range files {
		audit("daily.duckdb", "daily", f)
	}
	audit("resumed.duckdb", "resumed", files[:3]...)
	audit("resumed.duckdb", "resumed", files...)

	read := func(dir string) map[string]string {
		out := map[string]string{}
		filepath.WalkDir(filepath.Join(work, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(filepath.Join(work, dir), p)
				// The index and cross-day lists are of each run's days: only
				// the day reports must agree.
				if filepath.Dir(rel) != "." {
					out[rel] = string(b)
				}
			}
			return nil
		})
		return out
	}
	want := read("one")
	if !strings.Contains(want[filepath.Join("2026-11-02", "replays.csv")], "nonce") {
		t.Fatal("no nonce replay on 2026-11-02 (of a nonce of 2026-11-01): the demo does not exercise replays across days")
	}
	for _, dir := range []string{"daily", "resumed"} {
		got := read(dir)
		if len(got) != len(want) {
			t.Errorf("%s: %d report files, want %d", dir, len(got), len(want))
		}
		for name, text := range want {
			if got[name] != text {
				t.Errorf("%s: %s differs from the one-run report", dir, name)
			}
		}
	}
}
