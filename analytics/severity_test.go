package analytics

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/testenv"
	"github.com/receiptverify/verify/queries"
)

// seeds are the seeds a test runs over: the first alone, all of them
// with VERIFY_TESTS=all (as in CI).
func seeds(all ...uint64) []uint64 {
	if !testenv.All() {
		return all[:1]
	}
	return all
}

// seededReport generates an Ed25519 corpus for seed, loads it the real
// way and reports every day of it with opts (Day and Dir set here). It
// returns the corpus, the receipts and truth as generated, and every
// finding row of every day as a map of column to text.
func seededReport(t *testing.T, seed uint64, rate float64, opts ReportOptions) ([]genReceipt, []receiptgen.Record, []map[string]string, []*ReportSummary) {
	t.Helper()
	cfg := receiptgen.Config{Seed: seed, N: 500, Rate: rate, Days: 4, Algs: receiptgen.Ed25519Only()}
	c := genCorpus(t, "", cfg)
	db := openTestDB(t)
	mustLoad(t, db, c.v, c.schemas, c.receipts)
	rs, truth := readGenerated(t, c.dir)
	out := t.TempDir()
	var rows []map[string]string
	var sums []*ReportSummary
	for i := range cfg.Days {
		opts.Day = testStart.AddDate(0, 0, i).Format(time.DateOnly)
		opts.Dir = filepath.Join(out, opts.Day)
		sum, err := runReport(context.Background(), db.SQL(), opts)
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, sum)
		for _, name := range queries.Findings() {
			rows = append(rows, readCSV(t, filepath.Join(opts.Dir, name+".csv"))...)
		}
	}
	return rs, truth, rows, sums
}

// fails says whether a report row counts for the exit code at failOn.
func fails(row map[string]string, failOn severity.Severity) bool {
	sev, err := severity.Parse(row["severity"])
	return err == nil && sev >= failOn && row["suppressed"] != "true"
}

// TestDefaultFailOnCleanArchive is the first done-when: an archive with no
// planted anomaly (every receipt genuine, every tool an expected server's)
// fails no day at the default --fail-on, and its known collisions (the
// tool names two expected servers share) are listed at info.
func TestDefaultFailOnCleanArchive(t *testing.T) {
	for _, seed := range seeds(1, 2, 3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			_, truth, rows, sums := seededReport(t, seed, 0, ReportOptions{ToolVersion: "test"})
			for _, s := range sums {
				if s.Failing() != 0 {
					t.Errorf("%s: %d failing rows", s.Day, s.Failing())
				}
			}
			for _, r := range rows {
				if fails(r, severity.DefaultFailOn) {
					t.Errorf("row fails the default: %v", r)
				}
			}
			n := 0
			for _, c := range truth {
				if c.Kind != receiptgen.KindNameCollision {
					t.Fatalf("planted %s at rate 0", c.Kind)
				}
				for _, fp := range c.Fingerprints {
					i := slices.IndexFunc(rows, func(r map[string]string) bool {
						return r["finding"] == "collisions" && r["day"] == c.Day && r["tool_name"] == c.ToolName && r["tool_fingerprint"] == fp
					})
					if i < 0 {
						t.Errorf("known collision %s %s %s not listed", c.Day, c.ToolName, fp)
					} else if rows[i]["severity"] != "info" {
						t.Errorf("known collision %s %s at %s, want info", c.Day, c.ToolName, rows[i]["severity"])
					}
					n++
				}
			}
			if n == 0 {
				t.Fatal("no known collision to check")
			}
		})
	}
}

// TestDefaultFailOnPlanted is the second done-when: on archives with
// planted anomalies of every kind, every planted anomaly is reported at a
// severity that fails the default --fail-on, and no row that fails it is
// about anything else. A row is about a planted anomaly when it names the
// planted receipt (its line) or, for schema drift, the drifted tool's
// fingerprint.
func TestDefaultFailOnPlanted(t *testing.T) {
	for _, seed := range seeds(11, 12, 13) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rs, truth, rows, _ := seededReport(t, seed, 0.1, ReportOptions{ToolVersion: "test"})
			byLine := map[int]genReceipt{}
			for _, r := range rs {
				byLine[r.line] = r
			}
			lines := map[string]bool{}
			drifted := map[string]bool{}
			kinds := map[receiptgen.Kind]bool{}
			for _, a := range truth {
				if a.Line == 0 {
					continue
				}
				kinds[a.Kind] = true
				lines[fmt.Sprint(a.Line)] = true
				if a.Kind == receiptgen.KindSchemaDrift {
					g := byLine[a.Line]
					drifted[g.tool+"|"+g.fp] = true
				}
			}
			for _, k := range receiptgen.Kinds() {
				if !kinds[k] {
					t.Fatalf("no planted %s", k)
				}
			}
			failing := 0
			for _, r := range rows {
				if !fails(r, severity.DefaultFailOn) {
					continue
				}
				failing++
				about := lines[r["line"]]
				if r["finding"] == "collisions" || r["finding"] == "drift" {
					about = drifted[r["tool_name"]+"|"+r["tool_fingerprint"]]
				}
				if !about {
					t.Errorf("failing row about no planted anomaly: %v", r)
				}
			}
			for _, a := range truth {
				if a.Line == 0 {
					continue
				}
				g := byLine[a.Line]
				found := slices.ContainsFunc(rows, func(r map[string]string) bool {
					if !fails(r, severity.DefaultFailOn) {
						return false
					}
					if a.Kind == receiptgen.KindSchemaDrift {
						return r["finding"] == "drift" && r["kind"] == "unexpected_fingerprint" && r["day"] == a.Day &&
							r["tool_name"] == g.tool && r["tool_fingerprint"] == g.fp
					}
					return r["finding"] == "failures" && r["line"] == fmt.Sprint(a.Line) && strings.Contains(r["reasons"], a.Reason)
				})
				if !found {
					t.Errorf("planted %s (line %d) not reported at a failing severity", a.Kind, a.Line)
				}
			}
			t.Logf("%d failing rows for %d planted anomalies", failing, len(lines))
		})
	}
}

// TestSeverityRules pins each severity rule on a hand-built day: a
// collision of two expected servers (info), one with a fingerprint no
// server has (high, and low for its expected side), a session moving to
// the drifted schema (high) and back (low), a new pair of an expected
// server (low), and the same rows without expected schemas (medium).
func TestSeverityRules(t *testing.T) {
	t.Parallel()
	rows := []fixRow{
		{line: 1, agent: "ag1", issuer: "o", session: "s1", step: 0, tool: "search", fp: "A", issued: "2026-11-01T10:00:00Z"},
		{line: 2, agent: "ag1", issuer: "o", session: "s1", step: 0, tool: "lookup", fp: "L", issued: "2026-11-01T10:00:01Z"},
		{line: 3, agent: "ag2", issuer: "o", session: "s2", step: 0, tool: "search", fp: "A", issued: "2026-11-02T09:00:00Z"},
		{line: 4, agent: "ag2", issuer: "o", session: "s2", step: 1, tool: "search", fp: "B", issued: "2026-11-02T09:00:01Z"},
		{line: 5, agent: "ag3", issuer: "o", session: "s3", step: 0, tool: "lookup", fp: "L", issued: "2026-11-02T09:00:02Z"},
		{line: 6, agent: "ag3", issuer: "o", session: "s3", step: 1, tool: "lookup", fp: "Z", issued: "2026-11-02T09:00:03Z"},
		{line: 7, agent: "ag3", issuer: "o", session: "s3", step: 2, tool: "lookup", fp: "L", issued: "2026-11-02T09:00:04Z"},
		{line: 8, agent: "ag3", issuer: "o", session: "s3", step: 3, tool: "files.get", fp: "F", issued: "2026-11-02T09:00:05Z"},
	}
	expected := []string{"crm/search/A", "files/search/B", "crm/lookup/L", "files/files.get/F"}
	want := map[string]string{
		"collisions search A":           "info",
		"collisions search B":           "info",
		"collisions lookup L":           "low",
		"collisions lookup Z":           "high",
		"drift first_seen search B":     "low",
		"drift first_seen lookup Z":     "high",
		"drift first_seen files.get F":  "low",
		"drift session_change search B": "info",
		"drift session_change lookup Z": "high",
		"drift session_change lookup L": "low",
		"drift unexpected lookup Z":     "high",
	}
	for _, schemas := range []bool{true, false} {
		var exp []string
		if schemas {
			exp = expected
		}
		db := fixtureDB(t, rows, exp...)
		got := map[string]string{}
		for _, name := range []string{"collisions", "drift"} {
			tb, err := runQuery(context.Background(), db.SQL(), name, "2026-11-02")
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tb.Rows {
				kind := ""
				if i := tb.Col("kind"); i >= 0 {
					kind = strings.TrimSuffix(table.Text(r[i]), "_fingerprint") + " "
				}
				got[name+" "+kind+table.Text(r[tb.Col("tool_name")])+" "+table.Text(r[tb.Col("tool_fingerprint")])] = table.Text(r[tb.Col("severity")])
			}
		}
		for k, sev := range want {
			if !schemas {
				if strings.Contains(k, "unexpected") {
					continue // needs expected schemas
				}
				sev = "medium"
			}
			if got[k] != sev {
				t.Errorf("schemas %v: %s: severity %q, want %s", schemas, k, got[k], sev)
			}
			delete(got, k)
		}
		if len(got) > 0 {
			t.Errorf("schemas %v: rows not pinned: %v", schemas, got)
		}
	}
}

// TestFindingIDStable: finding_id is the same for the same row in another
// database loaded with the same receipts (it hashes facts, not paths or
// load times), and no two rows of a day share one.
func TestFindingIDStable(t *testing.T) {
	t.Parallel()
	moved := slices.Clone(fixtureRows)
	for i := range moved {
		moved[i].source = "/elsewhere/" + moved[i].file + "f1.jsonl"
	}
	ids := func(rows []fixRow) []string {
		db := fixtureDB(t, rows, fixtureExpected...)
		var out []string
		for _, name := range queries.Findings() {
			tb, err := runQuery(context.Background(), db.SQL(), name, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tb.Rows {
				out = append(out, table.Text(r[tb.Col(findingIDColumn)]))
			}
		}
		return out
	}
	a, b := ids(fixtureRows), ids(moved)
	if len(a) < 8 || !slices.Equal(a, b) {
		t.Errorf("ids differ between databases:\n%v\n%v", a, b)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(a)))) != len(a) {
		t.Errorf("two rows share a finding_id: %v", a)
	}
}

// TestKeepAtLeast: verify query --min-severity keeps the rows at the
// severity or above, and refuses a table without a severity column.
func TestKeepAtLeast(t *testing.T) {
	tab := &table.Table{Name: "drift", Columns: []string{"finding", "severity"},
		Rows: [][]any{{"drift", "info"}, {"drift", "high"}, {"drift", "low"}, {"drift", "medium"}}}
	if err := tab.KeepAtLeast(severity.Low); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range tab.Rows {
		got = append(got, table.Text(r[1]))
	}
	if strings.Join(got, ",") != "high,low,medium" {
		t.Errorf("kept %v, want high, low, medium in their order", got)
	}
	if err := (&table.Table{Name: "days", Columns: []string{"day"}}).KeepAtLeast(severity.High); err == nil {
		t.Error("a table without severity: no error")
	}
}
