package streamrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/verify"
)

// TestDemoCorpusGroundTruth verifies the generated demo archive (receiptgen
// --seed 7 --n 300 --rate 0.08 --mix asqav-hash=12,dsse=12,agentreceipts=16) and requires every planted anomaly to be
// reported on its line with its reason, and nothing else: precision and
// recall 100%.
func TestDemoCorpusGroundTruth(t *testing.T) {
	t.Parallel()
	checkGroundTruth(t, "../../../testdata/demo", 300, Options{})
}

// TestDemoMixesFormats: the demo archive shows a newcomer the formats the
// tool reads (receiptgen --mix asqav-hash=12,dsse=12,agentreceipts=16),
// each with receipts that pass.
func TestDemoMixesFormats(t *testing.T) {
	t.Parallel()
	dir := "../../../testdata/demo"
	passing := map[string]int{}
	_, err := Run(context.Background(), corpusVerifier(t, dir), []Source{fileSource(filepath.Join(dir, "receipts.jsonl"))}, Options{}, func(r *Record) error {
		if r.Verdict == verify.Pass {
			passing[r.Format]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for f, n := range map[string]int{"asqav-native": 200, "asqav-hash": 11, "dsse-attestation": 11, "agentreceipts": 15} {
		if passing[f] < n {
			t.Errorf("%s: %d passing receipts, want at least %d (all: %v)", f, passing[f], n, passing)
		}
	}
}

// TestGeneratedStreamGroundTruth does the same over a freshly generated
// stream of 20,000 Ed25519 receipts, with the index's memory bounded low (Ed25519 keeps generation fast; the
// verifier's chain, nonce and tool checks do not depend on the algorithm).
func TestGeneratedStreamGroundTruth(t *testing.T) {
	t.Parallel()
	const n = 20_000
	dir := t.TempDir()
	truth, err := receiptgen.Generate(receiptgen.Config{Seed: 11, N: n, Rate: 0.05, Algs: receiptgen.Ed25519Only()}, receiptgen.DirSink(dir))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(truth.Anomalies()); got < n/25 {
		t.Fatalf("only %d anomalies planted", got)
	}
	// The index holds 4,000 entries in memory here, so about fifteen runs
	// go to disk and are merged.
	checkGroundTruth(t, dir, n, Options{limits: indexLimits{entries: 4_000, judgments: 4_000}})
}

// corpusVerifier builds the verifier for a corpus directory as receiptgen
// writes it (keys/jwks.json, schemas/*.json), judging at 2026-12-01.
func corpusVerifier(tb testing.TB, dir string) *verify.Verifier {
	tb.Helper()
	v, _, err := receiptgen.LoadVerifier(dir, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// fileSource is a JSON Lines file on disk.
func fileSource(path string) Source {
	return Source{Name: filepath.Base(path), Lines: true, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

// checkGroundTruth verifies dir/receipts.jsonl and requires every anomaly
// planted in dir/truth.jsonl to be reported on its line with its reason,
// and nothing else (no other failing axis but the advisory expiry, no
// INCOMPLETE or UNREADABLE line), over exactly receipts receipts.
func checkGroundTruth(t *testing.T, dir string, receipts int64, opts Options) {
	t.Helper()
	v := corpusVerifier(t, dir)
	want := map[int]string{} // line -> reason
	truth, err := os.ReadFile(filepath.Join(dir, "truth.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(truth)), "\n") {
		var tr struct {
			Line   int    `json:"line"`
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatal(err)
		}
		if tr.Line > 0 {
			want[tr.Line] = tr.Reason
		}
	}
	if len(want) == 0 {
		t.Fatal("no planted anomalies in truth.jsonl")
	}
	got := map[int][]string{}
	sum, err := Run(context.Background(), v, []Source{fileSource(filepath.Join(dir, "receipts.jsonl"))}, opts, func(r *Record) error {
		for _, name := range verify.AxisOrder() {
			if ax := r.Axes.Of(name); ax.Status == verify.StatusFail && name != verify.AxisExpiry {
				got[r.Line] = append(got[r.Line], string(ax.Reason))
			}
		}
		if r.Verdict == verify.Incomplete || r.Verdict == verify.Unreadable {
			t.Errorf("line %d: %s %v", r.Line, r.Verdict, r.Reasons)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for line, reason := range want {
		if len(got[line]) != 1 || got[line][0] != reason {
			t.Errorf("line %d: planted %s, reported %v", line, reason, got[line])
		}
	}
	for line, reasons := range got {
		if _, ok := want[line]; !ok {
			t.Errorf("line %d: reported %v, nothing planted", line, reasons)
		}
	}
	if sum.Receipts != receipts || sum.Lines != receipts {
		t.Errorf("summary %+v, want %d receipts", sum, receipts)
	}
	t.Logf("%d receipts, %d planted anomalies, all reported and nothing else", sum.Receipts, len(want))
}

// fakePrior is an archive that holds every hash whose hex begins with 'a'
// (in a scope of its own), already names every one beginning with 'b'
// or 'c', and already used every nonce whose digest begins with 'd'.
type fakePrior struct{}

func (fakePrior) Nonces(_ context.Context, digests []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, d := range digests {
		if d[0] == 'd' {
			out[d] = true
		}
	}
	return out, nil
}

func (fakePrior) Links(_ context.Context, prefixes []string) (map[string]PriorLink, error) {
	out := map[string]PriorLink{}
	for _, p := range prefixes {
		switch p[0] {
		case 'a':
			out[p] = PriorLink{Found: true, Scope: "elsewhere"}
		case 'b', 'c':
			out[p] = PriorLink{Named: true}
		}
	}
	return out, nil
}

// TestIndexBoundsGiveSameResults: the demo archive's results, with and
// without an earlier archive, are byte for byte the same whether the index
// stays in memory or goes through many small runs on disk and asks the
// archive one hash at a time.
func TestIndexBoundsGiveSameResults(t *testing.T) {
	t.Parallel()
	dir := "../../../testdata/demo"
	v := corpusVerifier(t, dir)
	render := func(opts Options) string {
		var out strings.Builder
		opts.Render = RenderJSON
		_, err := Run(context.Background(), v, []Source{fileSource(filepath.Join(dir, "receipts.jsonl"))}, opts, func(r *Record) error {
			out.Write(r.Rendered)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	tiny := indexLimits{entries: 7, judgments: 5, priorBatch: 1}
	for _, prior := range []Prior{nil, fakePrior{}} {
		want := render(Options{Prior: prior})
		if got := render(Options{Prior: prior, limits: tiny}); got != want {
			t.Errorf("prior %T: results differ with the index on disk", prior)
		}
		if prior != nil && want == render(Options{}) {
			t.Error("the earlier archive changed no result")
		}
	}
}

// TestPriorNonces: a nonce an earlier archive already used is a replay on
// its first use in the input too, and the archive is asked by the digest
// the archive stores (NonceDigest).
func TestPriorNonces(t *testing.T) {
	t.Parallel()
	dir := "../../../testdata/demo"
	v := corpusVerifier(t, dir)
	run := func(opts Options) map[string][]verify.Reason {
		got := map[string][]verify.Reason{}
		_, err := Run(context.Background(), v, []Source{fileSource(filepath.Join(dir, "receipts.jsonl"))}, opts, func(r *Record) error {
			got[NonceDigest(r.NonceKey())+"/"+r.Fields.ActionID] = slices.Clone(r.Reasons)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	without := run(Options{})
	with := run(Options{Prior: fakePrior{}, limits: indexLimits{priorBatch: 3}})
	replays := 0
	for k, reasons := range with {
		was := slices.Contains(without[k], verify.ReasonNonceReplay)
		is := slices.Contains(reasons, verify.ReasonNonceReplay)
		switch {
		case k[0] == 'd' && !is:
			t.Errorf("%s: nonce used in the archive, reasons %v", k, reasons)
		case k[0] != 'd' && is != was:
			t.Errorf("%s: nonce_replay %v with the archive, %v without", k, is, was)
		}
		if is && !was {
			replays++
		}
	}
	if replays == 0 {
		t.Fatal("no receipt became a replay: the corpus has no nonce digest beginning with 'd'")
	}
}

// countingPrior is fakePrior recording the size of each question.
type countingPrior struct {
	fakePrior
	sizes *[]int
}

func (p countingPrior) Nonces(ctx context.Context, digests []string) (map[string]bool, error) {
	*p.sizes = append(*p.sizes, len(digests))
	return p.fakePrior.Nonces(ctx, digests)
}

func (p countingPrior) Links(ctx context.Context, prefixes []string) (map[string]PriorLink, error) {
	*p.sizes = append(*p.sizes, len(prefixes))
	return p.fakePrior.Links(ctx, prefixes)
}

// TestPriorBatch: Options.PriorBatch bounds the keys of each question to
// the archive, and the results do not depend on it.
func TestPriorBatch(t *testing.T) {
	t.Parallel()
	dir := "../../../testdata/demo"
	v := corpusVerifier(t, dir)
	run := func(batch int) (string, []int) {
		var sizes []int
		var b strings.Builder
		_, err := Run(context.Background(), v, []Source{fileSource(filepath.Join(dir, "receipts.jsonl"))},
			Options{Prior: countingPrior{sizes: &sizes}, PriorBatch: batch}, func(r *Record) error {
				fmt.Fprintf(&b, "%d %s %v\n", r.Line, r.Verdict, r.Reasons)
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		return b.String(), sizes
	}
	want, sizes := run(0)
	if slices.Max(sizes) <= 16 {
		t.Fatalf("questions of %v keys: the demo asks too few to tell batches apart", sizes)
	}
	got, small := run(16)
	if got != want {
		t.Error("results differ with questions of 16 keys")
	}
	if slices.Max(small) > 16 || len(small) <= len(sizes) {
		t.Errorf("PriorBatch 16: questions of %v keys (default: %v)", small, sizes)
	}
}
