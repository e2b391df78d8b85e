package main

import (
	"bytes"
	"database/sql"
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
	"github.com/receiptverify/verify/internal/testkit/textdiff"
)

// TestOrderProperty: a planted three-day archive (nonce replays, forks,
// breaks, re-serialised deliveries again) cut into three files, laid out
// as a logrotate family and in directories whose names sort against time,
// and loaded in one load, in two and in three (newest first, shuffled),
// stores the same rows in every table (paths and load times aside) and
// writes the same reports within a layout. Which receipt of a nonce is
// the original is decided by what the receipts carry, and a later load
// that brings an earlier original revises what was stored. So is which of
// two receipts naming one predecessor is the first namer and which the
// fork: the later-issued namer of each planted fork is read, or loaded,
// before the first.
func TestOrderProperty(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	corpus := t.TempDir()
	cfg := receiptgen.Config{Seed: 35, N: 150, Rate: 0.12, Days: 3, Algs: receiptgen.Ed25519Only()}
	truth, err := receiptgen.Generate(cfg, receiptgen.DirSink(corpus))
	if err != nil {
		t.Fatal(err)
	}
	forks := map[int]string{} // the later namers of forks: action_id by 0-based line
	for _, r := range truth.Records {
		if r.Kind == receiptgen.KindFork {
			forks[r.Line-1] = r.ActionID
		}
	}
	b, err := os.ReadFile(filepath.Join(corpus, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	// The parts are the lines in order of issue, cut in three; each
	// planted nonce replay is moved to the last part, so that loads split
	// by part meet replays before their originals. The later-issued namer
	// of each planted fork goes to the head of a part read or loaded
	// before its first namer: the newest part's head when the first namer
	// is in an older part (the newest-first loads and the directories
	// whose names sort newest first take it first), else the oldest
	// part's head (a logrotate family is read oldest first).
	var parts [3][]string
	var heads [3][]string
	nonce := regexp.MustCompile(`"nonce":"[^"]*"`)
	uses := map[string]int{}
	for _, l := range lines {
		uses[nonce.FindString(l)]++
	}
	seen := map[string]bool{}
	third := len(lines) / 3
	moved := 0
	for i, l := range lines {
		n := nonce.FindString(l)
		part := min(i/third, 2)
		if n != "" && uses[n] > 1 && seen[n] {
			part = 2
		}
		seen[n] = true
		if forks[i] != "" {
			// The first namer was issued just before (receiptgen's
			// fork: between it and its successor).
			if part < 2 || min((i-1)/third, 2) < 2 {
				heads[2] = append(heads[2], l)
			} else {
				heads[0] = append(heads[0], l)
			}
			moved++
			continue
		}
		parts[part] = append(parts[part], l)
	}
	for i := range parts {
		parts[i] = append(heads[i], parts[i]...)
	}
	if moved == 0 {
		t.Fatal("the archive has no planted fork: it does not test which namer is first")
	}
	// Deliveries again: receipts of the first part re-serialised (a
	// space after the opening brace: the same signed bytes) in the last,
	// and one of the last in the first.
	for _, l := range parts[0][:3] {
		parts[2] = append(parts[2], "{ "+l[1:])
	}
	parts[0] = append(parts[0], "{ "+parts[2][0][1:])
	content := func(i int) []byte { return []byte(strings.Join(parts[i], "")) }

	// Layouts: the paths of parts 0, 1, 2 (oldest first): a logrotate
	// family, and directories whose names sort newest first.
	layouts := map[string][3]string{
		"logrotate": {"agent.jsonl.2", "agent.jsonl.1", "agent.jsonl"},
		"dirs":      {"z/old.jsonl", "m/mid.jsonl", "a/new.jsonl"},
	}
	// Splits: the loads, each a list of parts ("*" the directory whole).
	splits := map[string][][]int{
		"one":           {{0, 1, 2}},
		"newest-first":  {{2}, {0, 1}},
		"three-shuffle": {{1}, {2}, {0}},
	}
	trust := []string{"--keys", filepath.Join(corpus, "keys", "jwks.json"), "--schemas", filepath.Join(corpus, "schemas"), "--at", "2026-12-01T00:00:00Z"}
	var wantRows, wantFrom string
	revised := 0
	forkRevised := false // a load made a stored first namer a fork
	for lname, names := range layouts {
		logs := filepath.Join(t.TempDir(), "logs")
		for i, n := range names {
			writeFile(t, filepath.Join(logs, n), content(i))
		}
		var wantReports map[string][]byte
		var reportsFrom string
		for sname, loads := range splits {
			what := lname + "/" + sname
			db := filepath.Join(t.TempDir(), "audit.duckdb")
			for _, load := range loads {
				args := append([]string{"load", "--db", db, "--store-raw", "all", "-q"}, trust...)
				if len(load) == 3 {
					args = append(args, logs) // the directory walk orders them
				}
				for _, i := range load {
					if len(load) < 3 {
						args = append(args, filepath.Join(logs, names[i]))
					}
				}
				code, stdout, stderr := runVerify(t, args...)
				if code != 0 {
					t.Fatalf("%s: verify %s: exit %d\n%s%s", what, strings.Join(args, " "), code, stdout, stderr)
				}
				revised += strings.Count(stdout, "revised: ")
			}
			rows := dumpOrderTables(t, db)
			if queryOrderRows(t, db, "SELECT count(*) > 0 FROM revisions WHERE why LIKE 'chain_fork:%'") == "true\n" {
				forkRevised = true
			}
			switch {
			case wantRows == "":
				wantRows, wantFrom = rows, what
			case rows != wantRows:
				t.Errorf("%s: the tables differ from %s's:\n%s", what, wantFrom, textdiff.Lines(wantRows, rows))
			}
			reports := map[string][]byte{}
			for _, day := range []string{"2026-11-01", "2026-11-02", "2026-11-03"} {
				out := t.TempDir()
				code, stdout, stderr := runVerify(t, "report", "--db", db, "--day", day, "--out", out, "--no-fail", "--at", "2026-12-01T00:00:00Z")
				if code != 0 {
					t.Fatalf("%s: report %s: exit %d\n%s%s", what, day, code, stdout, stderr)
				}
				err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					b, err := os.ReadFile(p)
					rel, _ := filepath.Rel(out, p)
					reports[rel] = stripRun(b)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if wantReports == nil {
				wantReports, reportsFrom = reports, what
				continue
			}
			for f, b := range wantReports {
				if !bytes.Equal(reports[f], b) {
					t.Errorf("%s: report %s differs from %s's:\n%s", what, f, reportsFrom, textdiff.Lines(string(b), string(reports[f])))
				}
			}
		}
	}
	if !strings.Contains(wantRows, "nonce_replay") || !strings.Contains(wantRows, "chain_fork") {
		t.Errorf("no planted nonce replay or fork stored: the archive does not test the order")
	}
	if revised == 0 {
		t.Errorf("no load revised a stored verdict: the splits do not test revisions")
	}
	if !forkRevised {
		t.Errorf("no load revised a stored first namer to a fork: the splits do not test fork revisions")
	}
	// The later namer of each fork is the fork, not its first namer.
	for _, row := range strings.Split(wantRows, "\n") {
		for _, id := range forks {
			if strings.Contains(row, "\t"+id+"\t") && !strings.Contains(row, "chain_fork") {
				t.Errorf("the planted fork %s is stored without chain_fork: %s", id, row)
			}
		}
	}
	if n := strings.Count(wantRows, "chain_fork"); n < len(forks) {
		t.Errorf("%d rows with chain_fork, want at least the %d planted forks", n, len(forks))
	}
}

// dumpOrderTables is every table's rows that the receipts decide, in a
// stable order: the columns that name paths or load times are left out.
func dumpOrderTables(t *testing.T, path string) string {
	t.Helper()
	db, err := analytics.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, q := range []string{
		"SELECT * EXCLUDE (source) FROM receipts ORDER BY ALL",
		"SELECT * EXCLUDE (source) FROM rejects ORDER BY ALL",
		"SELECT * EXCLUDE (path, loaded_at, family) FROM files ORDER BY ALL",
		"SELECT * FROM expected_tools ORDER BY ALL",
		"SELECT * FROM late_deliveries ORDER BY ALL",
		"SELECT * FROM report_runs ORDER BY ALL",
	} {
		fmt.Fprintf(&b, "== %s\n", q)
		rows, err := db.SQL().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(orderRowsText(t, rows))
	}
	return b.String()
}

func orderRowsText(t *testing.T, rows *sql.Rows) string {
	t.Helper()
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var b strings.Builder
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('\t')
			}
			if tv, ok := v.(time.Time); ok {
				v = tv.UTC().Format(time.RFC3339Nano)
			}
			fmt.Fprintf(&b, "%v", v)
		}
		b.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// stripRun drops the lines of a report that name the run or its clock.
func stripRun(b []byte) []byte {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "generated") || strings.Contains(l, "pid ") {
			continue
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, "\n"))
}

// TestRotatedDemoRevised: the demo archive rotated once (lines 1-100 in
// agent.jsonl.1, the rest in the live agent.jsonl), the live file loaded
// the night before the rotated one. The first load stores the replay
// (agent.jsonl:26, line 126 of the whole) as the original of its nonce;
// the load that brings the original (agent.jsonl.1:83) revises it to FAIL
// nonce_replay, records the revision, and names the day: verify load with
// its report command, verify audit by reporting it again.
func TestRotatedDemoRevised(t *testing.T) {
	t.Parallel()
	lines := demoLines(t)
	logs := filepath.Join(t.TempDir(), "logs")
	rotated, live := filepath.Join(logs, "agent.jsonl.1"), filepath.Join(logs, "agent.jsonl")
	writeFile(t, rotated, []byte(strings.Join(lines[:100], "")))
	writeFile(t, live, []byte(strings.Join(lines[100:], "")))
	revisedDay := regexp.MustCompile(`(?m)^revised: (\d{4}-\d\d-\d\d) \(1 receipt\(s\)\); `)
	for _, cmd := range []string{"load", "audit"} {
		work := t.TempDir()
		db, out := filepath.Join(work, "audit.duckdb"), filepath.Join(work, "reports")
		if code, stdout, stderr := runVerify(t, append(append([]string{"load", "--db", db, "-q"}, demoArgs...), live)...); code != 0 {
			t.Fatalf("load %s: exit %d\n%s%s", live, code, stdout, stderr)
		}
		args := append([]string{cmd, "--db", db, "-q"}, demoArgs...)
		if cmd == "audit" {
			args = append(args, "--out", out)
		}
		_, stdout, stderr := runVerify(t, append(args, rotated)...)
		m := revisedDay.FindStringSubmatch(stdout)
		if m == nil {
			t.Fatalf("%s %s: no revised day on stdout:\n%s%s", cmd, rotated, stdout, stderr)
		}
		day := m[1]
		want := "report it again: verify report --db " + db + " --day " + day + " --out DIR"
		if cmd == "audit" {
			want = "reported again: " + filepath.Join(out, day, "summary.md")
		}
		if !strings.Contains(stdout, want) {
			t.Errorf("%s: stdout does not say %q:\n%s", cmd, want, stdout)
		}
		rows := queryOrderRows(t, db, "SELECT source || ':' || line FROM receipts WHERE list_contains(reasons, 'nonce_replay') ORDER BY ALL")
		if !strings.Contains(rows, live+":26\n") || strings.Contains(rows, rotated+":83\n") {
			t.Errorf("%s: nonce replays stored at %q, want %s:26 and not %s:83", cmd, rows, live, rotated)
		}
		revs := queryOrderRows(t, db, "SELECT source || ':' || line, old_verdict, new_verdict, cause_line, run <> '' FROM revisions")
		if want := live + ":26\tPASS\tFAIL\t83\ttrue\n"; revs != want {
			t.Errorf("%s: revisions %q, want %q", cmd, revs, want)
		}
		if cmd == "audit" {
			b, err := os.ReadFile(filepath.Join(out, day, "failures.csv"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), live+",26,") {
				t.Errorf("audit: the revised day's failures.csv does not list %s:26:\n%s", live, b)
			}
		}
	}
}

// queryOrderRows is the rows of q over the database at path, tab-separated.
func queryOrderRows(t *testing.T, path, q string) string {
	t.Helper()
	db, err := analytics.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.SQL().Query(q)
	if err != nil {
		t.Fatal(err)
	}
	return orderRowsText(t, rows)
}

// TestReceiptsReplayInEveryArgOrder: verify receipts given the rotated
// demo's files in either order fails the replay (agent.jsonl:26) and not
// its original (agent.jsonl.1:83): the first use of a nonce is the first
// by issue time, not the first read.
func TestReceiptsReplayInEveryArgOrder(t *testing.T) {
	t.Parallel()
	lines := demoLines(t)
	logs := filepath.Join(t.TempDir(), "logs")
	rotated, live := filepath.Join(logs, "agent.jsonl.1"), filepath.Join(logs, "agent.jsonl")
	writeFile(t, rotated, []byte(strings.Join(lines[:100], "")))
	writeFile(t, live, []byte(strings.Join(lines[100:], "")))
	for _, order := range [][]string{{rotated, live}, {live, rotated}} {
		_, stdout, stderr := runVerify(t, append(append([]string{"receipts"}, demoArgs...), order...)...)
		replay := live + ":26: FAIL asqav-native: nonce fail nonce_replay"
		if !strings.Contains(stdout, replay) || strings.Contains(stdout, rotated+":83: ") {
			t.Errorf("%v: want the replay %q failed and not the original %s:83\nstdout: %s\nstderr: %s", order, replay, rotated, stdout, stderr)
		}
	}
}
