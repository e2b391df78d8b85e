package analytics

import (
	"bytes"
	"context"
	"path/filepath"
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
