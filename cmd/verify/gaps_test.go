package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
)

// TestGaps plants a thin day and a silent one in a source that delivers
// every day: one agent's log, rotated by date. The thin day is a medium
// gaps finding (failing the day at --fail-on medium), the silent day a
// high one (failing it by default, where an empty day alone exits 3);
// --thin-fraction and verify.toml's thin-fraction move the threshold, and
// OCSF names the technique.
func TestGaps(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	gen := t.TempDir()
	if _, err := receiptgen.Generate(receiptgen.Config{Seed: 7, N: 135, Days: 9, Start: start, Agents: 1, SessionsPerAgent: 45, Orgs: 1, Algs: receiptgen.Ed25519Only()}, receiptgen.DirSink(gen)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(gen, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	byDay := map[string][]string{}
	issued := regexp.MustCompile(`"issued_at":"(\d{4}-\d{2}-\d{2})T`)
	for _, l := range strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n") {
		byDay[issued.FindStringSubmatch(l)[1]] = append(byDay[issued.FindStringSubmatch(l)[1]], l)
	}
	day := func(i int) string { return start.AddDate(0, 0, i-1).Format(time.DateOnly) }
	root := t.TempDir()
	for i := 1; i <= 7; i++ {
		if len(byDay[day(i)]) < 6 {
			t.Fatalf("the corpus has %d receipts on %s; the test wants at least 6 a day", len(byDay[day(i)]), day(i))
		}
		writeFile(t, filepath.Join(root, "logs", "agent.jsonl-"+strings.ReplaceAll(day(i), "-", "")), []byte(strings.Join(byDay[day(i)], "")))
	}
	// Day 8: one receipt of the day's; day 9: nothing.
	writeFile(t, filepath.Join(root, "logs", "agent.jsonl"), []byte(byDay[day(8)][0]))
	db := filepath.Join(root, "audit.duckdb")
	keys := filepath.Join(gen, "keys", "jwks.json")
	if code, out, errs := runVerify(t, "load", "--db", db, "--keys", keys, "--at", "2026-11-10T01:10:00Z", filepath.Join(root, "logs")); code != exitOK {
		t.Fatalf("load: exit %d\n%s%s", code, out, errs)
	}
	check := func(what string, want int, wantOut []string, args ...string) string {
		t.Helper()
		code, out, errs := runVerify(t, args...)
		if code != want {
			t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", what, code, want, out, errs)
		}
		for _, w := range wantOut {
			if !strings.Contains(out, w) {
				t.Errorf("%s: stdout lacks %q\nstdout: %s\nstderr: %s", what, w, out, errs)
			}
		}
		return out
	}
	family := filepath.Join(root, "logs", "agent.jsonl")
	csv := check("query the thin day", exitOK, []string{",thin," + family + ",*,1,"}, "query", "--db", db, "--day", day(8), "--format", "csv", "gaps")
	if n := strings.Count(csv, "\ngaps,medium,"); n != 2 {
		t.Errorf("query gaps --day %s: %d medium rows, want 2 (the family and its agent)\n%s", day(8), n, csv)
	}
	check("the thin day by default", exitOK, []string{day(8) + ": gaps: 0\n", day(8) + ": below --fail-on: 2\n"},
		"report", "--db", db, "--day", day(8), "--out", filepath.Join(root, "r8"))
	check("the thin day at --fail-on medium", exitRejected, []string{day(8) + ": gaps: 2\n"},
		"report", "--db", db, "--day", day(8), "--out", filepath.Join(root, "r8"), "--fail-on", "medium")
	check("a lower --thin-fraction", exitOK, nil,
		"report", "--db", db, "--day", day(8), "--out", filepath.Join(root, "r8"), "--fail-on", "medium", "--thin-fraction", "0.05")
	if csv := check("query with a lower --thin-fraction", exitOK, nil, "query", "--db", db, "--day", day(8), "--format", "csv", "--thin-fraction", "0.05", "gaps"); strings.Contains(csv, "\ngaps,") {
		t.Errorf("query gaps --thin-fraction 0.05: rows\n%s", csv)
	}
	check("the silent day", exitRejected, []string{day(9) + ": 0 receipts", day(9) + ": gaps: 2\n"},
		"report", "--db", db, "--day", day(9), "--out", filepath.Join(root, "r9"))
	summary, err := os.ReadFile(filepath.Join(root, "r9", "summary.md"))
	if err != nil || !strings.Contains(string(summary), "silent") {
		t.Errorf("summary.md of the silent day does not say silent (%v)\n%s", err, summary)
	}
	check("the silent day as OCSF", exitOK, []string{`"T1562"`, `"severity":"High"`}, "query", "--db", db, "--day", day(9), "--format", "ocsf", "gaps")
	check("a bad --gap-window", exitUsage, nil, "query", "--db", db, "--gap-window", "0", "gaps")

	// The threshold from verify.toml.
	conf := filepath.Join(root, "verify.toml")
	writeFile(t, conf, []byte("thin-fraction = 0.05\ngap-window = 7\n"))
	if err := os.Chmod(conf, 0o600); err != nil {
		t.Fatal(err)
	}
	check("thin-fraction from verify.toml", exitOK, nil,
		"report", "--config", conf, "--db", db, "--day", day(8), "--out", filepath.Join(root, "r8"), "--fail-on", "medium")
}
