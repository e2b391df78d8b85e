package analytics

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/queries"
)

// TestSharedFindingsAgree: the reports of every day of a corpus with
// planted findings are the same bytes whether each day runs its own
// finding queries or takes its rows from one run over all days; and a
// report of some days only runs its own.
func TestSharedFindingsAgree(t *testing.T) {
	_, db, days := reportCorpus(t)
	ctx := context.Background()
	shared, err := shareFindings(ctx, db.SQL(), days, queries.GapSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if shared == nil {
		t.Fatal("ShareFindings over every day of the database: nil")
	}
	own, one := t.TempDir(), t.TempDir()
	for _, day := range days {
		a, err := runReport(ctx, db.SQL(), ReportOptions{Day: day, Dir: filepath.Join(own, day), ToolVersion: "test"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := runReport(ctx, db.SQL(), ReportOptions{Day: day, Dir: filepath.Join(one, day), ToolVersion: "test", Shared: shared})
		if err != nil {
			t.Fatal(err)
		}
		if a.Total() != b.Total() || a.Total() == 0 {
			t.Errorf("%s: %d finding rows from its own queries, %d shared", day, a.Total(), b.Total())
		}
		want, got := readDir(t, filepath.Join(own, day)), readDir(t, filepath.Join(one, day))
		if len(got) != len(want) {
			t.Errorf("%s: %d files shared, want %d", day, len(got), len(want))
		}
		for name, w := range want {
			if !bytes.Equal(got[name], w) {
				t.Errorf("%s/%s differs when the rows are shared:\n%s\nwant:\n%s", day, name, got[name], w)
			}
		}
	}
	if s, err := shareFindings(ctx, db.SQL(), days[1:], queries.GapSettings{}); err != nil || s != nil {
		t.Errorf("ShareFindings over some of the days = %v, %v; want nil: each day runs its own queries", s, err)
	}
}

// TestSharedDayRows: the days and tool_days rows a day takes from the
// queries run once for every day are the rows the query gives for that
// day, over a history longer than the chart's window.
func TestSharedDayRows(t *testing.T) {
	t.Parallel()
	cfg := receiptgen.Config{Seed: 7, N: 3000, Days: chartDays + 12, Algs: receiptgen.Ed25519Only()}
	c := genCorpus(t, "", cfg)
	db := openTestDB(t)
	mustLoad(t, db, c.v, c.schemas, c.receipts)
	ctx := context.Background()
	all, err := runQuery(ctx, db.SQL(), "days", "")
	if err != nil {
		t.Fatal(err)
	}
	var days []string
	for _, r := range all.Rows {
		days = append(days, table.Text(r[all.Col("day")]))
	}
	if len(days) <= chartDays {
		t.Fatalf("%d days, want more than %d", len(days), chartDays)
	}
	shared, err := shareFindings(ctx, db.SQL(), days, queries.GapSettings{})
	if err != nil || shared == nil {
		t.Fatalf("ShareFindings: %v, %v", shared, err)
	}
	defer shared.Close()
	for _, day := range days {
		for _, name := range []string{"days", "tool_days"} {
			want, err := runQuery(ctx, db.SQL(), name, day)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := shared.take(name, day)
			if err != nil || !ok {
				t.Fatalf("take(%s, %s): %v, %v", name, day, ok, err)
			}
			var w, g bytes.Buffer
			want.WriteCSV(&w)
			got.WriteCSV(&g)
			if len(want.Rows) == 0 || !bytes.Equal(w.Bytes(), g.Bytes()) {
				t.Errorf("%s on %s: shared\n%s\nwant\n%s", name, day, g.Bytes(), w.Bytes())
			}
		}
	}
}

// TestSharedCompletenessAndGaps: completeness and gaps, read a day at a
// time from one run over every day, give each day the rows its own query
// gives, over a corpus whose checkpoints judge chains and whose logrotate
// family delivers one day thin, with the thresholds the run was given;
// and gaps is not shared once a day reported holds no receipts, which
// only its own query judges.
func TestSharedCompletenessAndGaps(t *testing.T) {
	t.Parallel()
	cfg := receiptgen.Config{Seed: 11, N: 3000, Days: 10, Completeness: 1, Algs: receiptgen.Ed25519Only()}
	c := genCorpus(t, "", cfg)
	raw, err := os.ReadFile(c.receipts)
	if err != nil {
		t.Fatal(err)
	}
	byDay := map[string][]string{}
	for _, l := range strings.SplitAfter(string(raw), "\n") {
		if i := strings.Index(l, `"issued_at":"`); i >= 0 {
			d := l[i+len(`"issued_at":"`):][:10]
			byDay[d] = append(byDay[d], l)
		}
	}
	dir := t.TempDir()
	paths := []string{filepath.Join(c.dir, receiptgen.FileCheckpoints)}
	for i, d := range slices.Sorted(maps.Keys(byDay)) {
		lines := byDay[d]
		if i == 7 {
			lines = lines[:len(lines)/10]
		}
		p := filepath.Join(dir, "agent.jsonl-"+strings.ReplaceAll(d, "-", ""))
		if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	db := openTestDB(t)
	mustLoad(t, db, c.v, c.schemas, paths...)
	ctx := context.Background()
	all, err := runQuery(ctx, db.SQL(), "days", "")
	if err != nil {
		t.Fatal(err)
	}
	var days []string
	for _, r := range all.Rows {
		days = append(days, table.Text(r[all.Col("day")]))
	}
	for _, gaps := range []queries.GapSettings{{}, {WindowDays: 3, ThinFraction: 0.5}} {
		shared, err := shareFindings(ctx, db.SQL(), days, gaps)
		if err != nil || shared == nil {
			t.Fatalf("ShareFindings: %v, %v", shared, err)
		}
		rows := map[string]int{}
		for _, day := range days {
			for _, name := range []string{"completeness", "gaps"} {
				want, err := runText(ctx, db.SQL(), name, gaps.Apply(name, queryText(t, name)), day)
				if err != nil {
					t.Fatal(err)
				}
				got, ok, err := shared.take(name, day)
				if err != nil || !ok {
					t.Fatalf("take(%s, %s): %v, %v", name, day, ok, err)
				}
				var w, g bytes.Buffer
				want.WriteCSV(&w)
				got.WriteCSV(&g)
				if !bytes.Equal(w.Bytes(), g.Bytes()) {
					t.Errorf("%s on %s (%v): shared\n%s\nwant\n%s", name, day, gaps, g.Bytes(), w.Bytes())
				}
				rows[name] += len(want.Rows)
			}
		}
		shared.Close()
		if rows["completeness"] == 0 || rows["gaps"] == 0 {
			t.Errorf("%v: rows %v: want some of each, or nothing was compared", gaps, rows)
		}
	}
	// A day with no receipt (the load day of a file without any) is
	// judged by gaps only when named: gaps is then run day by day.
	more := append(slices.Clone(days), "2026-10-01")
	slices.Sort(more)
	shared, err := shareFindings(ctx, db.SQL(), more, queries.GapSettings{})
	if err != nil || shared == nil {
		t.Fatalf("ShareFindings: %v, %v", shared, err)
	}
	defer shared.Close()
	if _, ok, _ := shared.take("gaps", "2026-10-01"); ok {
		t.Error("gaps shared over a day that holds no receipts")
	}
	if _, ok, _ := shared.take("completeness", days[0]); !ok {
		t.Error("completeness not shared")
	}
}

// queryText is the text of the named query.
func queryText(t *testing.T, name string) string {
	t.Helper()
	q, err := queries.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return q.Text
}
