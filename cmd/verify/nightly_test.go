package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/testenv"
)

// genDays generates a clean corpus of days days from start and returns
// its lines by UTC day of issued_at, in file order, and the key file.
func genDays(t *testing.T, seed uint64, n, days int, start time.Time) (byDay map[string][]string, keys string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := receiptgen.Generate(receiptgen.Config{Seed: seed, N: n, Days: days, Start: start, Algs: receiptgen.Ed25519Only()}, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	byDay = map[string][]string{}
	issued := regexp.MustCompile(`"issued_at":"(\d{4}-\d{2}-\d{2})T`)
	for _, l := range strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n") {
		m := issued.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("a generated line without issued_at: %.80s", l)
		}
		byDay[m[1]] = append(byDay[m[1]], l)
	}
	return byDay, filepath.Join(dir, "keys", "jwks.json")
}

// TestNightlyWeek runs the README's nightly job (audit -q --day
// yesterday over the log directory, at 01:10 UTC) for eight nights over a
// directory that a producer appends to and logrotate rotates by rename,
// copytruncate, gzip and dateext, that gets a late delivery, a batch sent
// again, a thin day, an edit, an outage and a backfill of a reported day
// with a forged receipt.
// Each night gives the exit code a person expects, says what it must, and
// the database ends with every receipt stored once. docs/nightly.md shows
// this week (go test -run TestNightlyWeek -v ./cmd/verify prints it).
func TestNightlyWeek(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	agent, keys := genDays(t, 44, 210, 7, start)
	day := func(i int) string { return start.AddDate(0, 0, i-1).Format(time.DateOnly) }
	// The late producer signs with its own key: a second key file.
	late, lateKeys := genDays(t, 42, 12, 1, start.AddDate(0, 0, 1))
	// So does a relay that backfills day 6 after it was reported.
	backfill, backfillKeys := genDays(t, 43, 6, 1, start.AddDate(0, 0, 5))
	root := t.TempDir()
	logs := filepath.Join(root, "logs")
	path := func(name string) string { return filepath.Join(logs, name) }
	read := func(name string) string {
		b, err := os.ReadFile(path(name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	write := func(name, s string) { writeFile(t, path(name), []byte(s)) }
	appendTo := func(name, s string) { write(name, read(name)+s) }
	rename := func(from, to string) {
		if err := os.Rename(path(from), path(to)); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(root, "audit.duckdb")
	out := filepath.Join(root, "report")
	total := 0
	var transcript strings.Builder
	night := func(n int, what string, want int, wantOut ...string) {
		t.Helper()
		at := start.AddDate(0, 0, n).Add(70 * time.Minute).Format(time.RFC3339)
		code, stdout, stderr := runVerify(t, "audit", "-q", "--db", db, "--out", out, "--keys", keys, "--keys", lateKeys, "--keys", backfillKeys, "--at", at, "--day", day(n), logs)
		if code != want {
			t.Errorf("night %d (%s): exit %d, want %d\nstdout: %s\nstderr: %s", n, what, code, want, stdout, stderr)
		}
		for _, w := range wantOut {
			if !strings.Contains(stdout+stderr, w) {
				t.Errorf("night %d (%s): output lacks %q\nstdout: %s\nstderr: %s", n, what, w, stdout, stderr)
			}
		}
		fmt.Fprintf(&transcript, "night %d, --day %s: %s: exit %d\n", n, day(n), what, code)
		for _, l := range strings.Split(strings.TrimSpace(stdout+stderr), "\n") {
			if l != "" {
				fmt.Fprintf(&transcript, "    %s\n", strings.ReplaceAll(strings.ReplaceAll(l, root+"/", ""), root, "."))
			}
		}
	}
	half := func(l string) string { return l[:len(l)/2] }
	// begun is how many lines of day i a producer has written by the
	// night's run at 01:10: those issued before it.
	begun := func(i int) int {
		cut := day(i) + "T01:10"
		n := 0
		for n < len(agent[day(i)]) && regexp.MustCompile(`"issued_at":"([^"]*)"`).FindStringSubmatch(agent[day(i)][n])[1] < cut {
			n++
		}
		return n
	}

	// Night 1: the log holds day 1, the lines of day 2 written by 01:10
	// and half a line being written; a note lies beside it.
	d2 := agent[day(2)]
	b2 := begun(2)
	write("agent.jsonl", strings.Join(agent[day(1)], "")+strings.Join(d2[:b2], "")+half(d2[b2]))
	write("README.txt", "receipts of the helpdesk agent\n")
	night(1, "day 1 whole, day 2 begun, a line half written", exitOK,
		"left for the next run: "+path("agent.jsonl"), "not read: 1 file(s)", path("README.txt"))
	total += len(agent[day(1)]) + b2
	for name, want := range map[string]string{"summary.md": "Not read: 1 file(s)", "manifest.json": `"not_read": [`} {
		b, err := os.ReadFile(filepath.Join(out, day(1), name))
		if err != nil || !strings.Contains(string(b), want) || !strings.Contains(string(b), "README.txt") {
			t.Errorf("night 1: %s does not name the file not read (%v)", name, err)
		}
	}

	// Night 2: the half line was finished and day 2 written; logrotate
	// renamed the log (create) and the producer began day 3 in a new one.
	appendTo("agent.jsonl", d2[b2][len(d2[b2])/2:]+strings.Join(d2[b2+1:], ""))
	rename("agent.jsonl", "agent.jsonl.1")
	d3, b3 := agent[day(3)], begun(3)
	write("agent.jsonl", strings.Join(d3[:b3], ""))
	night(2, "rotated by rename: agent.jsonl.1, a new agent.jsonl", exitOK)
	total += len(d2) - b2 + b3

	// Night 3: copytruncate: .1 shifted to .2, the log copied to .1 and
	// truncated, day 4 begun in it.
	appendTo("agent.jsonl", strings.Join(d3[b3:], ""))
	rename("agent.jsonl.1", "agent.jsonl.2")
	write("agent.jsonl.1", read("agent.jsonl"))
	d4, b4 := agent[day(4)], begun(4)
	write("agent.jsonl", strings.Join(d4[:b4], ""))
	// A relay re-sends the end of day 2 in a file of its own.
	write("relay-resend.jsonl", strings.Join(d2[len(d2)-5:], ""))
	night(3, "rotated by copytruncate; a relay re-sends 5 lines of day 2", exitOK,
		"re-delivered: "+path("relay-resend.jsonl")+": 5 line(s) stored already from another file")
	total += len(d3) - b3 + b4

	// Night 4: the same with compression: .2 gzipped to .3.gz.
	appendTo("agent.jsonl", strings.Join(d4[b4:], ""))
	writeFile(t, path("agent.jsonl.3.gz"), gzipBytes(t, []byte(read("agent.jsonl.2"))))
	os.Remove(path("agent.jsonl.2"))
	rename("agent.jsonl.1", "agent.jsonl.2")
	write("agent.jsonl.1", read("agent.jsonl"))
	d5, b5 := agent[day(5)], begun(5)
	write("agent.jsonl", strings.Join(d5[:b5], ""))
	night(4, "rotated with gzip (agent.jsonl.3.gz)", exitOK)
	total += len(d4) - b4 + b5

	// Night 5: logrotate switched to dateext; and another producer's log
	// of day 2 arrives late.
	appendTo("agent.jsonl", strings.Join(d5[b5:], ""))
	rename("agent.jsonl", "agent.jsonl-20261105")
	write("agent.jsonl", "")
	write("helpdesk.jsonl-20261102", strings.Join(late[day(2)], ""))
	night(5, "dateext rotation; a late delivery of day 2", exitOK,
		fmt.Sprintf("late delivery: %d receipt(s) added to %s, reported at %sT01:10:00Z; reported again: %s", len(late[day(2)]), day(2), day(3), filepath.Join(out, day(2), "summary.md")))
	total += len(d5) - b5 + len(late[day(2)])

	// Night 6: day 6 arrives thin: the producer lost all but its first 3
	// receipts (a full disk); and someone edited a line of a log loaded
	// the night before.
	d6, b7 := agent[day(6)][:3], begun(7)
	write("agent.jsonl", strings.Join(d6, "")+strings.Join(agent[day(7)][:b7], ""))
	original := read("agent.jsonl-20261105")
	edited := strings.Replace(original, `"step":`, `"step" :`, 1)
	write("agent.jsonl-20261105", edited)
	night(6, "day 6; an edit in a loaded log", exitNoInput,
		path("agent.jsonl-20261105")+": refused, not loaded: line 1 differs from the line loaded before from "+path("agent.jsonl"))
	total += len(d6) + b7
	if _, err := os.Stat(filepath.Join(out, day(6), "summary.md")); err != nil {
		t.Errorf("night 6: the other inputs were not reported: %v", err)
	}
	// The thin day is a gaps finding of its source, the log's family.
	if b, err := os.ReadFile(filepath.Join(out, day(6), "gaps.csv")); err != nil || !strings.Contains(string(b), ",thin,"+path("agent.jsonl")+",*,3,") {
		t.Errorf("night 6: day 6's gaps.csv does not list the thin day (%v)\n%s", err, b)
	}

	// Night 7: the edit undone; the producer stopped before day 7 began:
	// the delivery is missing.
	if b7 != 0 {
		t.Fatalf("the corpus has %d receipts of day 7 before 01:10; the week wants none", b7)
	}
	write("agent.jsonl-20261105", original)
	night(7, "the edit undone; nothing for day 7", exitRejected, "no new bytes: no input file is new or has grown since the last load",
		"2026-11-07         0           0      0        0         0        0             0     1")

	// Night 8: a relay backfills day 6, reported on night 6, with a
	// receipt forged among its genuine ones.
	bf := backfill[day(6)]
	last := len(bf) - 1 // the last: no chain successor to fail with it
	forged := strings.Replace(bf[last], `"tool_name":"`, `"tool_name":"x`, 1)
	if forged == bf[last] {
		t.Fatal("no tool_name to forge")
	}
	bf[last] = forged
	write("relay-20261106.jsonl", strings.Join(bf, ""))
	night(8, "a backfill of day 6 with a forged receipt", exitRejected,
		fmt.Sprintf("late delivery: %d receipt(s) added to %s (1 not PASS), reported at %sT01:10:00Z; reported again: %s", len(bf), day(6), day(7), filepath.Join(out, day(6), "summary.md")))
	total += len(bf)
	if b, err := os.ReadFile(filepath.Join(out, day(6), "summary.md")); err != nil || !strings.Contains(string(b), "## Late deliveries") {
		t.Errorf("night 8: day 6's report does not list its late delivery (%v)", err)
	}

	t.Logf("\n%s", &transcript)
	// docs/nightly.md shows this transcript: it must be this run's.
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "nightly.md"))
	if err != nil {
		t.Fatal(err)
	}
	if shown := regexp.MustCompile(`(?m)^`).ReplaceAllString(strings.TrimSuffix(transcript.String(), "\n"), "    ") + "\n"; !strings.Contains(string(doc), shown) {
		t.Errorf("docs/nightly.md does not show this week's transcript; put the one above in it")
	}
	got, _ := dbRows(t, db)
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != total {
		t.Errorf("%d receipts stored, want %d", len(lines), total)
	}
	seen := map[string]bool{}
	notPass := 0
	for _, l := range lines {
		f := strings.Fields(l)
		if seen[f[1]] {
			t.Errorf("a line stored twice: %s", l)
		}
		seen[f[1]] = true
		if f[2] != "PASS" {
			notPass++
		}
	}
	if notPass != 1 {
		t.Errorf("%d receipts not PASS, want 1 (the forged one)", notPass)
	}
}
