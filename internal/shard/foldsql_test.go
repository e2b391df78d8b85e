package shard

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/queries"
	"github.com/receiptverify/verify/verify"
)

// TestFoldSQL: queries/shard/fold.sql, run on DuckDB over a sharded run
// with planted anomalies (breaks, forks, absent links and replays
// across the shards, receipts delivered again, forged copies whose
// signatures fail, a gzip input, an unreadable line), gives every
// record the verdict, reasons and chain and nonce axes with their notes
// that the Go fold gives it (Finalize, and FinalizeShard shard by shard
// over the files verify judge --fold publishes) and that one
// streamrun.Run over the same inputs gives it, row for row; and
// queries/shard/fold_summary.sql over those rows gives the summary of
// each (FinalizeShard's shard by shard, Finalize's and Run's whole).
func TestFoldSQL(t *testing.T) {
	t.Parallel()
	dir, v, lines := generated(t, receiptgen.Config{Seed: 11, N: 1600, Rate: 0.1, Days: 2})
	lines = lines[:len(lines)-1] // after the last newline
	q := len(lines) / 4
	forged := strings.ReplaceAll(strings.Join(lines[40:46], ""), `"nonce":"`, `"nonce":"f`)
	bodies := []string{
		strings.Join(lines[:q], ""),
		strings.Join(lines[q:2*q], "") + "not json\n\n" + strings.Join(lines[3:6], ""),
		strings.Join(lines[2*q:2*q+7], "") + strings.Join(lines[2*q+30:3*q], "") + forged,
		strings.Join(lines[3*q:3*q+3], "") + strings.Join(lines[3*q+20:], "") + strings.Join(lines[q+5:q+9], ""),
	}
	// Lines held out of the run, in the history below.
	heldOut := strings.Join(lines[2*q+7:2*q+30], "") + strings.Join(lines[3*q+3:3*q+20], "")
	var inputs []Input
	for i, body := range bodies {
		p := filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", i))
		data := []byte(body)
		if i == 2 {
			p += ".gz"
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(data)
			zw.Close()
			data = b.Bytes()
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, Input{Path: p, Size: int64(len(data))})
	}
	p, err := NewPlan("foldsql", Trust{At: "2026-12-01T00:00:00Z"}, inputs, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(planFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := ReadPlan(planFile)
	if err != nil {
		t.Fatal(err)
	}
	src := func(ins []Input) []streamrun.Source {
		var out []streamrun.Source
		for _, in := range ins {
			out = append(out, streamrun.Source{Name: in.Path, Lines: true, Open: func() (io.ReadCloser, error) { return os.Open(in.Path) }})
		}
		return out
	}
	ctx := context.Background()
	var dirs []string
	for n := range plan.Shards {
		out := filepath.Join(dir, "maps", fmt.Sprintf("shard-%d", n))
		w, err := Create(out, plan, n, plan.Trust)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := streamrun.Map(ctx, v, src(plan.InputsOf(n)), streamrun.Options{}, w.Add)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(sum); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, out)
	}

	// One process over the inputs, the Go fold whole, and the SQL fold.
	var want strings.Builder
	runSum, err := streamrun.Run(ctx, v, src(inputs), streamrun.Options{}, func(r *streamrun.Record) error {
		want.WriteString(foldLine(r.Result))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, reason := range []string{"chain_break", "chain_fork", "chain_absent", "nonce_replay", "malformed", "bad_signature",
		// and every kind of note
		"is already named by an earlier receipt (record ", "nonce already used by an earlier receipt of this issuer (record ",
		"delivered again", "claims chain position", "links to a receipt", "unique in this run", "belongs to another chain"} {
		if !strings.Contains(want.String(), reason) {
			t.Fatalf("no result has %q: the archive plants none", reason)
		}
	}
	if runSum.Duplicates == 0 || runSum.ChainsOutside == 0 {
		t.Fatalf("the run counts %d duplicates and %d chains outside: the archive plants none", runSum.Duplicates, runSum.ChainsOutside)
	}
	run, err := Open(ctx, plan, dirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var goFold strings.Builder
	goSum, err := Finalize(ctx, run, FinalizeOptions{}, func(r *verify.Result) error {
		goFold.WriteString(foldLine(r))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if summaryRows(-1, goSum) != summaryRows(-1, runSum) {
		t.Fatalf("the Go fold's summary differs from one run's:\n%s", lineDiff(summaryRows(-1, runSum), summaryRows(-1, goSum)))
	}
	if goFold.String() != want.String() {
		t.Fatalf("the Go fold differs from one run:\n%s", lineDiff(want.String(), goFold.String()))
	}
	judgments, verdicts := filepath.Join(dir, "judgments"), filepath.Join(dir, "verdicts")
	if err := WriteJudgments(ctx, run, judgments, verdicts); err != nil {
		t.Fatal(err)
	}
	var whole, shardSums strings.Builder
	for n := range plan.Shards {
		file := JudgmentsFile(verdicts, n)
		got := sqlFoldLines(t, file)
		whole.WriteString(got)
		// The Go fold of the shard alone, with its judgments file.
		one, err := OpenShard(ctx, plan, dirs, n)
		if err != nil {
			t.Fatal(err)
		}
		var goShard strings.Builder
		sum, err := FinalizeShard(ctx, one, n, JudgmentsFile(judgments, n), func(r *verify.Result, _ *streamrun.LineRef) error {
			goShard.WriteString(foldLine(r))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		shardSums.WriteString(summaryRows(n, sum))
		if got != goShard.String() || got == "" {
			t.Errorf("shard %d: fold.sql differs from the Go fold of the shard:\n%s", n, lineDiff(goShard.String(), got))
		}
	}
	if whole.String() != want.String() {
		t.Errorf("fold.sql differs from one run:\n%s", lineDiff(want.String(), whole.String()))
	}
	// The summary, shard by shard and whole, and as verify judge --fold
	// reads it.
	if got, want := sqlSummary(t, run, verdicts), shardSums.String()+summaryRows(-1, runSum); got != want {
		t.Errorf("fold_summary.sql differs from the Go fold's summaries:\n%s", lineDiff(want, got))
	}
	if sum, err := FoldSummary(ctx, run, verdicts); err != nil || summaryRows(-1, sum) != summaryRows(-1, runSum) {
		t.Errorf("FoldSummary: %v\n%s", err, lineDiff(summaryRows(-1, runSum), summaryRows(-1, sum)))
	}

	// With history (an earlier run of the first input and of receipts
	// moved out of the later ones): its receipts delivered again, forks
	// of it and replays of its nonces.
	earlier := filepath.Join(dir, "earlier.jsonl")
	if err := os.WriteFile(earlier, []byte(bodies[0]+heldOut), 0o644); err != nil {
		t.Fatal(err)
	}
	hp := testPlan(t, earlier)
	hist := filepath.Join(dir, "history")
	w, err := Create(hist, hp, 0, hp.Trust)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := streamrun.Map(ctx, v, src([]Input{{Path: earlier}}), streamrun.Options{}, w.Add)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(sum); err != nil {
		t.Fatal(err)
	}
	withHist, err := Open(ctx, plan, dirs, []string{hist})
	if err != nil {
		t.Fatal(err)
	}
	goFold.Reset()
	histSum, err := Finalize(ctx, withHist, FinalizeOptions{}, func(r *verify.Result) error {
		goFold.WriteString(foldLine(r))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if goFold.String() == want.String() {
		t.Fatal("the history changed no verdict")
	}
	for _, note := range []string{"already named by a receipt loaded earlier", "nonce already used by a receipt of this issuer loaded earlier", "the same receipt as one loaded earlier, delivered again"} {
		if !strings.Contains(goFold.String(), note) {
			t.Fatalf("no result has %q: the history plants none", note)
		}
	}
	if err := WriteJudgments(ctx, withHist, judgments, verdicts); err != nil {
		t.Fatal(err)
	}
	whole.Reset()
	for n := range plan.Shards {
		whole.WriteString(sqlFoldLines(t, JudgmentsFile(verdicts, n)))
	}
	if whole.String() != goFold.String() {
		t.Errorf("with history, fold.sql differs from the Go fold:\n%s", lineDiff(goFold.String(), whole.String()))
	}
	if got := sqlSummary(t, run, verdicts); !strings.HasSuffix(got, summaryRows(-1, histSum)) {
		t.Errorf("with history, fold_summary.sql differs from the Go fold's summary:\n%s", lineDiff(summaryRows(-1, histSum), got[strings.Index(got, "-1\t"):]))
	}
}

// summaryRows are the rows fold_summary.sql gives of the summary s of
// shard n (-1: the whole run), a line each: shard, name, value,
// tab-separated, by name.
func summaryRows(n int64, s streamrun.Summary) string {
	rows := map[string]int64{"files": int64(s.Files), "files_unreadable": int64(s.FilesFailed), "lines": s.Lines, "blank": s.Blank,
		"receipts": s.Receipts, "pass": s.Pass, "fail": s.Fail, "incomplete": s.Incomplete, "unreadable": s.Unreadable,
		"unknown_format": s.UnknownFormat, "duplicates": s.Duplicates, "chains_outside": s.ChainsOutside}
	for r, c := range s.Reasons {
		if c != 0 {
			rows["reasons."+string(r)] = c
		}
	}
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		fmt.Fprintf(&b, "%d\t%s\t%d\n", n, name, rows[name])
	}
	return b.String()
}

// sqlSummary runs queries/shard/fold_summary.sql on DuckDB over the
// files dir/shard-N.parquet of fold.sql's rows and the table
// fold_shards of run, its rows as summaryRows writes them, the whole
// run's last.
func sqlSummary(t *testing.T, run *Run, dir string) string {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, stmt := range append(run.FoldShards("duckdb"), "CREATE VIEW verdicts AS SELECT * FROM read_parquet("+sqltext.String(filepath.ToSlash(filepath.Join(dir, "shard-*.parquet")))+")") {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.Query(queries.FoldSummary())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var whole, shards strings.Builder
	for rows.Next() {
		var n, value int64
		var name string
		if err := rows.Scan(&n, &name, &value); err != nil {
			t.Fatal(err)
		}
		b := &shards
		if n < 0 {
			b = &whole
		}
		fmt.Fprintf(b, "%d\t%s\t%d\n", n, name, value)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return shards.String() + whole.String()
}

// foldLine is what fold.sql gives of a result, as one line: source,
// line, verdict, reasons joined by commas, and the chain and nonce axes'
// status, reason and note, tab-separated.
func foldLine(r *verify.Result) string {
	reasons := make([]string, len(r.Reasons))
	for i, x := range r.Reasons {
		reasons[i] = string(x)
	}
	c, n := r.Axes.Of(verify.AxisChain), r.Axes.Of(verify.AxisNonce)
	return strings.Join([]string{r.Source, fmt.Sprint(r.Line), string(r.Verdict), strings.Join(reasons, ","),
		string(c.Status), string(c.Reason), string(n.Status), string(n.Reason), c.Note, n.Note}, "\t") + "\n"
}

// sqlFoldLines reads a file of fold.sql's rows as foldLine writes them,
// in ord order.
func sqlFoldLines(t *testing.T, file string) string {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT source, line, verdict, reasons, chain_status, chain_reason, nonce_status, nonce_reason, chain_note, nonce_note FROM read_parquet(" + sqltext.String(filepath.ToSlash(file)) + ") ORDER BY ord")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var f [10]string
		if err := rows.Scan(&f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9]); err != nil {
			t.Fatal(err)
		}
		b.WriteString(strings.Join(f[:], "\t") + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// lineDiff shows the first line where got differs from want.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d of %d:\nwant %q\n got %q", i+1, len(w), a, b)
		}
	}
	return "the same"
}
