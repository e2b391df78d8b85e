package analytics

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/testenv"
	"github.com/receiptverify/verify/internal/testkit/textdiff"
)

// splitByDay writes the corpus's lines to one file per UTC day of
// issued_at, in order, and returns their paths.
func splitByDay(t *testing.T, c *corpus, dir string) []string {
	t.Helper()
	byDay := map[string][][]byte{}
	var days []string
	for _, line := range readLines(t, c.receipts) {
		var r struct {
			Payload struct {
				IssuedAt string `json:"issued_at"`
			} `json:"payload"`
		}
		if err := json.Unmarshal(line, &r); err != nil || len(r.Payload.IssuedAt) < 10 {
			t.Fatalf("line %q: %v", line, err)
		}
		d := r.Payload.IssuedAt[:10]
		if byDay[d] == nil {
			days = append(days, d)
		}
		byDay[d] = append(byDay[d], line)
	}
	slices.Sort(days)
	var paths []string
	for _, d := range days {
		p := filepath.Join(dir, d+".jsonl")
		writeLines(t, p, byDay[d])
		paths = append(paths, p)
	}
	return paths
}

// reportFiles reports every day of db into dir and returns each file's
// bytes by day/name.
func reportFiles(t *testing.T, db *DB, dir string) map[string][]byte {
	t.Helper()
	days, err := runQuery(context.Background(), db.SQL(), "days", "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, r := range days.Rows {
		d := table.Text(r[days.Col("day")])
		sum, err := runReport(context.Background(), db.SQL(), ReportOptions{Day: d, Dir: filepath.Join(dir, d), ToolVersion: "test"})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range sum.Files {
			b, err := os.ReadFile(filepath.Join(sum.Dir, name))
			if err != nil {
				t.Fatal(err)
			}
			out[d+"/"+name] = b
		}
	}
	return out
}

// TestLoadsAgree loads one archive with planted anomalies, split into a
// file per day, three ways: in one load, one load per day, and in a load
// interrupted after three files were committed and then run again whole.
// Every table and every report file is the same, byte for byte: the
// judgments of chains and nonces span the whole database, not one load.
func TestLoadsAgree(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	n, days := 450, 5
	c := genCorpus(t, "", receiptgen.Config{Seed: 21, N: n, Rate: 0.12, Days: days})
	paths := splitByDay(t, c, t.TempDir())
	if len(paths) != days {
		t.Fatalf("%d day files, want %d", len(paths), days)
	}
	at := testStart.AddDate(0, 0, days+31)
	opts := func() LoadOptions {
		return LoadOptions{Schemas: c.schemas, TempDir: t.TempDir(), At: at, Trust: Trust{At: at, ToolVersion: "test"}}
	}
	inputs := func(ps []string) []Input {
		var ins []Input
		for _, p := range ps {
			ins = append(ins, fileInput(p))
		}
		return ins
	}
	ctx := context.Background()

	oneShot := openTestDB(t)
	if _, err := oneShot.Load(ctx, c.v, inputs(paths), opts()); err != nil {
		t.Fatal(err)
	}

	daily := openTestDB(t)
	for _, p := range paths {
		if _, err := daily.Load(ctx, c.v, inputs([]string{p}), opts()); err != nil {
			t.Fatal(err)
		}
	}

	resumed := openTestDB(t)
	cctx, cancel := context.WithCancel(ctx)
	o := opts()
	committed := 0
	o.OnFile = func(f FileSummary) {
		if f.Accepted > 0 {
			committed++
		}
	}
	o.beforeCommit = func(ctx context.Context, f *FileSummary) error {
		if committed == 3 {
			cancel() // as a kill would: the fourth file is not committed
			return ctx.Err()
		}
		return nil
	}
	if _, err := resumed.Load(cctx, c.v, inputs(paths), o); err == nil {
		t.Fatal("the interrupted load did not fail")
	}
	cancel()
	if n := queryInt(t, resumed, "SELECT count(*) FROM files"); n != 3 {
		t.Fatalf("%d files committed before the interruption, want 3", n)
	}
	sum, err := resumed.Load(ctx, c.v, inputs(paths), opts())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(slices.DeleteFunc(sum.Files, func(f FileSummary) bool { return !f.AlreadyLoaded })); n != 3 {
		t.Fatalf("the resumed load found %d files already loaded, want 3", n)
	}

	// The archive exercises the judgments across files: replayed nonces
	// and chains whose other end is in another day's file.
	crossReplays := queryInt(t, oneShot, `SELECT count(*) FROM receipts r
		WHERE list_contains(r.reasons, 'nonce_replay')
		  AND EXISTS (SELECT 1 FROM receipts o WHERE o.nonce_key = r.nonce_key AND o.file_sha256 <> r.file_sha256)`)
	crossLinks := queryInt(t, oneShot, `SELECT count(*) FROM receipts r JOIN receipts p ON substr(p.chain_hash, 1, 64) = r.previous_hash
		WHERE p.file_sha256 <> r.file_sha256`)
	if crossReplays == 0 || crossLinks == 0 {
		t.Fatalf("%d nonce replays and %d links across files: the archive does not exercise the cut", crossReplays, crossLinks)
	}
	t.Logf("%d receipts, %d nonce replays and %d chain links across day files",
		queryInt(t, oneShot, "SELECT count(*) FROM receipts"), crossReplays, crossLinks)

	want := dump(t, oneShot)
	for name, db := range map[string]*DB{"day by day": daily, "interrupted and resumed": resumed} {
		if got := dump(t, db); got != want {
			t.Errorf("%s: the tables differ from one load's:\n%s", name, textdiff.Lines(want, got))
		}
	}
	wantFiles := reportFiles(t, oneShot, t.TempDir())
	for name, db := range map[string]*DB{"day by day": daily, "interrupted and resumed": resumed} {
		got := reportFiles(t, db, t.TempDir())
		if len(got) != len(wantFiles) {
			t.Errorf("%s: %d report files, want %d", name, len(got), len(wantFiles))
		}
		var differ []string
		for f, b := range wantFiles {
			if !bytes.Equal(got[f], b) {
				differ = append(differ, f)
			}
		}
		slices.Sort(differ)
		if len(differ) > 0 {
			t.Errorf("%s: %d report file(s) differ from one load's: %v\n%s", name, len(differ), differ,
				textdiff.Lines(string(wantFiles[differ[0]]), string(got[differ[0]])))
		}
	}
}

// TestLoadsAgreeOutOfOrder: the day files loaded newest first, in one load
// and one load per day, give the same tables and reports. The day-by-day
// loads meet a receipt before its predecessor: it is stored as
// chain_absent, and the load that brings the predecessor links it, as one
// load of both does.
func TestLoadsAgreeOutOfOrder(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	n, days := 350, 3
	c := genCorpus(t, "", receiptgen.Config{Seed: 22, N: n, Rate: 0.12, Days: days})
	paths := splitByDay(t, c, t.TempDir())
	slices.Reverse(paths)
	at := testStart.AddDate(0, 0, days+31)
	opts := LoadOptions{Schemas: c.schemas, At: at, Trust: Trust{At: at, ToolVersion: "test"}}
	ctx := context.Background()
	var ins []Input
	for _, p := range paths {
		ins = append(ins, fileInput(p))
	}
	oneShot := openTestDB(t)
	opts.TempDir = t.TempDir()
	if _, err := oneShot.Load(ctx, c.v, ins, opts); err != nil {
		t.Fatal(err)
	}
	daily := openTestDB(t)
	for _, in := range ins {
		if _, err := daily.Load(ctx, c.v, []Input{in}, opts); err != nil {
			t.Fatal(err)
		}
	}
	late := queryInt(t, oneShot, `SELECT count(*) FROM receipts r JOIN receipts p ON p.chain_hash = r.previous_hash
		JOIN files fr ON fr.file_sha256 = r.file_sha256 JOIN files fp ON fp.file_sha256 = p.file_sha256 WHERE fp.path < fr.path`)
	if late == 0 {
		t.Fatal("no predecessor in an earlier day's file: the test does not exercise late predecessors")
	}
	t.Logf("%d receipts whose predecessor was loaded after them", late)
	if got, want := dump(t, daily), dump(t, oneShot); got != want {
		t.Errorf("day by day, newest first, the tables differ from one load's:\n%s", textdiff.Lines(want, got))
	}
	want, got := reportFiles(t, oneShot, t.TempDir()), reportFiles(t, daily, t.TempDir())
	for f, b := range want {
		if !bytes.Equal(got[f], b) {
			t.Errorf("report file %s differs:\n%s", f, textdiff.Lines(string(b), string(got[f])))
		}
	}
}
