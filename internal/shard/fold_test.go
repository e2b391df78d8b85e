package shard

import (
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/testenv"
	"github.com/receiptverify/verify/queries"
	"github.com/receiptverify/verify/verify"
)

// TestFoldRowGroups: a shard of many parts, each of many row groups (the
// sizes cut small), folds to what streamrun.Run gives, whole and alone
// (FinalizeShard), with blank lines between the records so that ords
// have gaps at the groups' edges; the summaries agree.
func TestFoldRowGroups(t *testing.T) {
	testenv.Long(t)
	oldParts, oldGroups := partRows, groupRows
	partRows, groupRows = 5000, 2048 // DuckDB writes groups of at least 2048 rows
	t.Cleanup(func() { partRows, groupRows = oldParts, oldGroups })

	dir, v, lines := generated(t, receiptgen.Config{Seed: 11, N: 12000, Rate: 0.1, Days: 1})
	// The later namers of the planted forks come first, so that the
	// first namer of each predecessor is not the first read: the Order
	// decides, in the index and in the judgments SQL alike.
	var body strings.Builder
	forks := plantedForks(t, dir)
	for _, i := range forks {
		body.WriteString(lines[i])
	}
	for i, l := range lines {
		if slices.Contains(forks, i) {
			continue
		}
		body.WriteString(l)
		if i%6 == 0 {
			body.WriteString("\n") // a blank line: a gap in the ords
		}
	}
	body.WriteString(strings.Join(lines[3:9], "")) // replays and forks
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(body.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	srcs := []streamrun.Source{{Name: in, Lines: true, Open: func() (io.ReadCloser, error) { return os.Open(in) }}}
	ctx := context.Background()
	plan := testPlan(t, in)
	out := filepath.Join(dir, "maps", "shard-0")
	w, err := Create(out, plan, 0, plan.Trust)
	if err != nil {
		t.Fatal(err)
	}
	msum, err := streamrun.Map(ctx, v, srcs, streamrun.Options{}, w.Add)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(msum); err != nil {
		t.Fatal(err)
	}

	var want strings.Builder
	wantSum, err := streamrun.Run(ctx, v, srcs, streamrun.Options{Render: streamrun.RenderJSON}, func(r *streamrun.Record) error {
		want.Write(r.Rendered)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	run, err := Open(ctx, plan, []string{out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(run.shards[0].m.Parts); n < 3 {
		t.Fatalf("%d parts, want many", n)
	}
	groups, err := func() ([]ordRange, error) {
		conn, done, err := judgmentsConn(ctx, run.engine, run.Parts(), History{})
		if err != nil {
			return nil, err
		}
		defer done()
		return rowGroups(ctx, conn, filepath.Join(out, "records-00000.parquet"))
	}()
	if err != nil || len(groups) < 2 {
		t.Fatalf("the first part has %d row groups (%v), want many", len(groups), err)
	}
	render := func(got *strings.Builder) func(*verify.Result) error {
		return func(r *verify.Result) error {
			got.Write(streamrun.RenderJSON(nil, r))
			return nil
		}
	}
	check := func(what string, got string, sum streamrun.Summary) {
		t.Helper()
		if got != want.String() {
			t.Errorf("%s differs from streamrun.Run:\n got %.1500s\nwant %.1500s", what, got, want.String())
		}
		if sum.Receipts != wantSum.Receipts || sum.Fail != wantSum.Fail || sum.Blank != wantSum.Blank || sum.Lines != wantSum.Lines {
			t.Errorf("%s: summary %+v, streamrun.Run %+v", what, sum, wantSum)
		}
	}
	var got strings.Builder
	sum, err := Finalize(ctx, run, FinalizeOptions{}, render(&got))
	if err != nil {
		t.Fatal(err)
	}
	check("Finalize", got.String(), sum)
	if !strings.Contains(got.String(), "chain_fork") || !strings.Contains(got.String(), "nonce_replay") {
		t.Error("no fork or replay judged")
	}

	// The judgments as another engine writes them, folded shard alone.
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range duckDBViews(run.Parts(), History{}) {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	jfile := filepath.Join(dir, "judgments.parquet")
	if _, err := db.Exec("COPY (" + queries.Judgments() + ") TO " + sqltext.String(jfile) + " (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	alone, err := OpenShard(ctx, plan, []string{out}, 0)
	if err != nil {
		t.Fatal(err)
	}
	got.Reset()
	each := render(&got)
	sum, err = FinalizeShard(ctx, alone, 0, jfile, func(res *verify.Result, _ *streamrun.LineRef) error { return each(res) })
	if err != nil {
		t.Fatal(err)
	}
	check("FinalizeShard", got.String(), sum)
}
