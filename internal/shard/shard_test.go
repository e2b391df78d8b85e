package shard

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/verify"
)

// mapsPrior is an earlier archive known by its map step's records: the
// stream's own way (Prior) of judging against history, beside which the
// judgment SQL's history_keys is checked.
type mapsPrior struct{ recs []*streamrun.Mapped }

func (p mapsPrior) Links(_ context.Context, prefixes []string) (map[string]streamrun.PriorLink, error) {
	out := map[string]streamrun.PriorLink{}
	for _, k := range prefixes {
		var pl streamrun.PriorLink
		for _, m := range p.recs {
			if m.Keys.Chain == k && !pl.Found {
				pl.Found, pl.Scope = true, m.Result.ScopeKey()
			}
			if m.Keys.Link == k {
				pl.Named = true
			}
		}
		if pl.Found || pl.Named {
			out[k] = pl
		}
	}
	return out, nil
}

func (p mapsPrior) Scopes(_ context.Context, qs []streamrun.ScopeQuery) (map[string]bool, error) {
	out := map[string]bool{}
	for _, q := range qs {
		for _, m := range p.recs {
			if m.Keys.Chain == "" || m.Keys.Claim || m.Keys.Scope != q.Digest {
				continue
			}
			if t, ok := m.Result.IssuedTime(); !ok || !q.HasBefore || t.UnixMicro() < q.Before {
				out[q.Digest] = true
			}
		}
	}
	return out, nil
}

func (p mapsPrior) Nonces(_ context.Context, digests []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, d := range digests {
		for _, m := range p.recs {
			if m.Keys.Nonce == d {
				out[d] = true
			}
		}
	}
	return out, nil
}

// TestHistory: finalizing the later half of an archive with the earlier
// half's map directory as history gives what streamrun.Run gives the later
// half with the earlier half as its Prior: chains resolve into the
// history, forks and replays of it are found, and receipts of it
// delivered again are told from them.
func TestHistory(t *testing.T) {
	dir, v, lines := generated(t, receiptgen.Config{Seed: 7, N: 1200, Rate: 0.1, Days: 2})
	half := len(lines) / 2
	earlier, later := filepath.Join(dir, "earlier.jsonl"), filepath.Join(dir, "later.jsonl")
	// The later half repeats a few earlier receipts (deliveries again),
	// altered copies of others (forged: claims of their positions, which
	// fork nothing), and a planted fork of the earlier half moved into it
	// (a fork of the history).
	forged := strings.ReplaceAll(strings.Join(lines[20:24], ""), `"nonce":"`, `"nonce":"f`)
	fork := plantedFork(t, dir, half)
	early := slices.Delete(slices.Clone(lines[:half]), fork, fork+1)
	for p, body := range map[string]string{earlier: strings.Join(early, ""), later: strings.Join(lines[half:], "") + strings.Join(lines[10:14], "") + forged + lines[fork]} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := func(p string) []streamrun.Source {
		return []streamrun.Source{{Name: p, Lines: true, Open: func() (io.ReadCloser, error) { return os.Open(p) }}}
	}
	ctx := context.Background()
	var prior mapsPrior
	plans := map[string]*RunPlan{}
	emitDir := func(p, out string, keep bool) {
		plans[out] = testPlan(t, p)
		w, err := Create(out, plans[out], 0, plans[out].Trust)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := streamrun.Map(ctx, v, src(p), streamrun.Options{}, func(m *streamrun.Mapped) error {
			if keep {
				prior.recs = append(prior.recs, m)
			}
			return w.Add(m)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(sum); err != nil {
			t.Fatal(err)
		}
	}
	hist, cur := filepath.Join(dir, "hist"), filepath.Join(dir, "cur")
	emitDir(earlier, hist, true)
	emitDir(later, cur, false)

	var want strings.Builder
	if _, err := streamrun.Run(ctx, v, src(later), streamrun.Options{Prior: prior, Render: streamrun.RenderJSON}, func(r *streamrun.Record) error {
		want.Write(r.Rendered)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	finalizeWith := func(keys string, history ...string) string {
		var got strings.Builder
		run, err := Open(ctx, plans[cur], []string{cur}, history)
		if err != nil {
			t.Fatal(err)
		}
		if keys != "" {
			if _, err := run.WithHistoryKeys(keys); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Finalize(ctx, run, FinalizeOptions{}, func(r *verify.Result) error {
			got.Write(streamrun.RenderJSON(nil, r))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got.String()
	}
	finalize := func(history ...string) string { return finalizeWith("", history...) }
	got := finalize(hist)
	if got != want.String() {
		t.Errorf("finalize with history differs from streamrun.Run with the earlier half as Prior:\n got %.2000s\nwant %.2000s", got, want.String())
	}
	for _, note := range []string{"already named by a receipt loaded earlier", "claims chain position", "nonce already used by a receipt of this issuer loaded earlier", "the same receipt as one loaded earlier, delivered again", "used by this same receipt, loaded earlier"} {
		if !strings.Contains(got, note) {
			t.Errorf("no receipt judged %q", note)
		}
	}
	if got == finalize() {
		t.Error("the history changed no verdict")
	}

	// The same history as two earlier runs, each numbered from shard 0
	// as each day's array job is (their records share ord values), with
	// a receipt in both: the same judgments.
	a, b := filepath.Join(dir, "earlier-a.jsonl"), filepath.Join(dir, "earlier-b.jsonl")
	quarter := half / 2
	for p, body := range map[string]string{a: strings.Join(early[:quarter+1], ""), b: strings.Join(early[quarter:], "")} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	histA, histB := filepath.Join(dir, "hist-a"), filepath.Join(dir, "hist-b")
	emitDir(a, histA, false)
	emitDir(b, histB, false)
	if two := finalize(histA, histB); two != got {
		t.Errorf("finalize with the history as two runs numbered alike differs from one:\n got %.2000s\nwant %.2000s", two, got)
	}

	// The compact history: the earlier half appended, then judged
	// against; the same as two runs appended one after the other
	// (numbered alike, a receipt in both), and appended twice.
	appendRun := func(keys, d string) bool {
		t.Helper()
		run, err := Open(ctx, plans[d], []string{d}, nil)
		if err != nil {
			t.Fatal(err)
		}
		appended, err := AppendHistory(ctx, run, keys)
		if err != nil {
			t.Fatal(err)
		}
		return appended
	}
	one, two := filepath.Join(dir, "keys-one"), filepath.Join(dir, "keys-two")
	for _, d := range []string{one, two} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if !appendRun(one, hist) || appendRun(one, hist) {
		t.Error("appending a run: not appended the first time, or again the second")
	}
	// Readable by an engine running as another user: the run's
	// directory 0755, its files readable by all.
	runs, _ := filepath.Glob(filepath.Join(one, "*"))
	for _, p := range runs {
		filepath.WalkDir(p, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := d.Info()
			if d.IsDir() && fi.Mode().Perm() != 0o755 || !d.IsDir() && fi.Mode().Perm()&0o444 != 0o444 {
				t.Errorf("%s: mode %v: not readable by another user", p, fi.Mode().Perm())
			}
			return nil
		})
	}
	if compact := finalizeWith(one); compact != got {
		t.Errorf("finalize with the compact history differs from the earlier records as history:\n got %.2000s\nwant %.2000s", compact, got)
	}
	appendRun(two, histA)
	appendRun(two, histB)
	if compact := finalizeWith(two); compact != got {
		t.Errorf("finalize with the compact history of two runs differs:\n got %.2000s\nwant %.2000s", compact, got)
	}
	// Each key once: the second run adds only what the first lacks, and
	// the two runs hold what the one run does.
	if a, b := historyRows(t, one), historyRows(t, two); a != b || a == 0 {
		t.Errorf("the compact history holds %d rows as one run and %d as two", a, b)
	}
	// A run's directory copied under another name (an append retried
	// under another id) changes nothing; the run's own directory (a run
	// judged again after its append) is left out of its judgments.
	if err := os.CopyFS(filepath.Join(one, "copy"), os.DirFS(filepath.Join(one, plans[hist].ID))); err != nil {
		t.Fatal(err)
	}
	if !appendRun(one, cur) {
		t.Error("the run judged was not appended")
	}
	if compact := finalizeWith(one); compact != got {
		t.Errorf("finalize with a run appended twice differs:\n got %.2000s\nwant %.2000s", compact, got)
	}
}

// historyRows counts the rows of the compact history in dir, and fails
// the test when a key is in it twice.
func historyRows(t *testing.T, dir string) int64 {
	t.Helper()
	files, _, err := HistoryKeyFiles(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	db, err := openDuckDB()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, distinct int64
	if err := db.QueryRow("SELECT count(*), count(DISTINCT (kind, k)) FROM ("+duckDBViews(nil, History{Keys: files})[2][len("CREATE VIEW history_all AS "):]+")").Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != distinct {
		t.Errorf("%s: %d rows, %d keys", dir, n, distinct)
	}
	return n
}

// generated writes an Ed25519 archive of cfg (from 2026-11-01) in a
// directory of the test's, and gives the directory, the verifier of its
// keys and schemas judging a month later, and its lines, each with its
// newline.
// plantedFork is the index in the lines of the first planted fork before
// line index before.
func plantedFork(t *testing.T, dir string, before int) int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "truth.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r receiptgen.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Kind == "fork" && r.Line > 0 && r.Line-1 < before {
			return r.Line - 1
		}
	}
	t.Fatal("no planted fork")
	return 0
}

// plantedForks is the indexes in the lines of the planted forks' later
// namers.
func plantedForks(t *testing.T, dir string) []int {
	t.Helper()
	out, err := receiptgen.LoadLinesOf(dir, receiptgen.KindFork)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no planted fork")
	}
	return out
}

func generated(t *testing.T, cfg receiptgen.Config) (dir string, v *verify.Verifier, lines []string) {
	t.Helper()
	dir = t.TempDir()
	cfg.Start = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	cfg.Algs = receiptgen.Ed25519Only()
	if _, err := receiptgen.Generate(cfg, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	v, _, err := receiptgen.LoadVerifier(dir, cfg.Start.AddDate(0, 0, 30))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, v, strings.SplitAfter(string(raw), "\n")
}

// testPlan writes and reads the plan of a one-shard run over the file at
// path, beside it.
func testPlan(t *testing.T, path string) *RunPlan {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan("", Trust{At: "2026-12-01T00:00:00Z"}, []Input{{Path: path, Size: fi.Size()}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	file := path + ".plan.json"
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rp, err := ReadPlan(file)
	if err != nil {
		t.Fatal(err)
	}
	return rp
}
