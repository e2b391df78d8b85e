package streamrun

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/verify"
)

// dayArchive generates a clean archive whose sessions span days (two
// agents, one session each, one of them over all three days) and returns
// its lines and the verifier for it.
func dayArchive(t *testing.T) ([][]byte, *verify.Verifier) {
	t.Helper()
	sink := receiptgen.NewMemSink()
	_, err := receiptgen.Generate(receiptgen.Config{
		Seed: 3, N: 3000, Rate: 0, Days: 3, Agents: 2, SessionsPerAgent: 1,
		Start: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Algs: receiptgen.Ed25519Only(),
	}, sink)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range sink.Names() {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, sink.File(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lines := bytes.SplitAfter(sink.File("receipts.jsonl"), []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines, corpusVerifier(t, dir)
}

// byDay splits lines into one file per UTC day of issued_at, in order.
func byDay(t *testing.T, lines [][]byte) (days []string, files map[string][]byte) {
	t.Helper()
	files = map[string][]byte{}
	for _, l := range lines {
		var r struct {
			Payload struct {
				IssuedAt string `json:"issued_at"`
			} `json:"payload"`
		}
		if err := json.Unmarshal(l, &r); err != nil || len(r.Payload.IssuedAt) < 10 {
			t.Fatalf("line without issued_at: %s", l)
		}
		day := r.Payload.IssuedAt[:10]
		if _, ok := files[day]; !ok {
			days = append(days, day)
		}
		files[day] = append(files[day], l...)
	}
	return days, files
}

func runOpts(t *testing.T, v *verify.Verifier, opts Options, srcs ...Source) (Summary, []*verify.Result) {
	t.Helper()
	var out []*verify.Result
	opts.Workers = 2
	sum, err := Run(context.Background(), v, srcs, opts, func(r *Record) error {
		out = append(out, r.Result)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sum, out
}

// TestDayFilesAlone: each day of a clean archive verified alone passes;
// the chains that began the day before are counted as starting outside
// the input, once each. A receipt deleted from the middle of a chain
// still fails its successor (a gap), with the index's runs on disk.
func TestDayFilesAlone(t *testing.T) {
	t.Parallel()
	lines, v := dayArchive(t)
	days, files := byDay(t, lines)
	if len(days) < 2 {
		t.Fatalf("the archive spans %d days", len(days))
	}
	outside := int64(0)
	for _, d := range days {
		sum, out := runOpts(t, v, Options{}, memSource(d+".jsonl", files[d], true))
		if sum.Fail != 0 || sum.Incomplete != 0 || sum.Pass != int64(len(out)) {
			t.Errorf("%s alone: %+v", d, sum)
		}
		outside += sum.ChainsOutside
	}
	if outside == 0 {
		t.Fatal("no chain crosses a day: the test shows nothing")
	}
	whole, _ := runOpts(t, v, Options{}, memSource("all.jsonl", bytes.Join(lines, nil), true))
	if whole.ChainsOutside != 0 || whole.Fail != 0 {
		t.Fatalf("the whole archive: %+v", whole)
	}

	// Delete the middle receipt of the second day's file.
	day := bytes.SplitAfter(files[days[1]], []byte("\n"))
	mid := len(day) / 2
	cut := append(append([][]byte{}, day[:mid]...), day[mid+1:]...)
	sum, out := runOpts(t, v, Options{limits: indexLimits{entries: 64, judgments: 64}}, memSource("cut.jsonl", bytes.Join(cut, nil), true))
	if sum.Fail != 1 || sum.Reasons[verify.ReasonChainAbsent] != 1 {
		t.Fatalf("a receipt deleted: %+v", sum)
	}
	for _, r := range out {
		if r.Verdict == verify.Fail {
			var succ struct {
				Payload struct {
					Prev string `json:"previousReceiptHash"`
				} `json:"payload"`
			}
			if err := json.Unmarshal(day[mid+1], &succ); err != nil {
				t.Fatal(err)
			}
			if prev, _, _ := r.ChainLink(); prev != succ.Payload.Prev {
				t.Errorf("failed %s:%d names %s; the deleted receipt's successor names %s", r.Source, r.Line, prev, succ.Payload.Prev)
			}
		}
	}
}

// TestBoundaryGapAgainstArchive: loaded a day at a time against an
// archive that knows chain scopes, a receipt deleted at the end of a day
// fails its successor, the first receipt of the next day, as one run over
// both days would; against an archive that does not, that successor
// starts its chain before the input, as it does against an archive that
// holds only the chain's later receipts.
func TestBoundaryGapAgainstArchive(t *testing.T) {
	t.Parallel()
	lines, v := dayArchive(t)
	days, files := byDay(t, lines)
	if len(days) < 3 {
		t.Fatalf("the archive spans %d days, want 3", len(days))
	}
	_, out := runOpts(t, v, Options{}, memSource("day2.jsonl", files[days[1]], true))
	var named string
	for _, r := range out {
		if r.Axes.Of(verify.AxisChain).Status == verify.StatusSkipped {
			named, _, _ = r.ChainLink()
			break
		}
	}
	if named == "" {
		t.Fatal("no chain of the second day began the day before")
	}
	var day1 [][]byte
	deleted := false
	for _, l := range bytes.SplitAfter(files[days[0]], []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		res, _ := v.Verify(bytes.TrimSpace(l))
		if res.Fingerprints.ChainHash == named {
			deleted = true
			continue
		}
		day1 = append(day1, l)
	}
	if !deleted {
		t.Fatal("the receipt the second day names is not in the first")
	}
	var scopes, plain memPrior
	for _, l := range day1 {
		res, _ := v.Verify(bytes.TrimSpace(l))
		scopes.add(res)
		plain.add(res)
	}
	sum, _ := runOpts(t, v, Options{Prior: &memScopesPrior{&scopes}}, memSource("day2.jsonl", files[days[1]], true))
	if sum.Fail != 1 || sum.Reasons[verify.ReasonChainAbsent] != 1 {
		t.Errorf("against an archive that knows scopes: %+v", sum)
	}
	whole, _ := runOpts(t, v, Options{}, memSource("both.jsonl", append(bytes.Join(day1, nil), files[days[1]]...), true))
	if whole.Fail != 1 || whole.Reasons[verify.ReasonChainAbsent] != 1 {
		t.Errorf("one run over both days: %+v", whole)
	}
	sum, _ = runOpts(t, v, Options{Prior: &plain}, memSource("day2.jsonl", files[days[1]], true))
	if sum.Fail != 0 {
		t.Errorf("against an archive that does not know scopes: %+v", sum)
	}

	// Loaded out of order, the third day first: its receipts are later
	// than the second day's, and make no gap of the chains that begin
	// before the second.
	var later memPrior
	for _, l := range bytes.SplitAfter(files[days[2]], []byte("\n")) {
		if len(l) > 0 {
			res, _ := v.Verify(bytes.TrimSpace(l))
			later.add(res)
		}
	}
	sum, _ = runOpts(t, v, Options{Prior: &memScopesPrior{&later}}, memSource("day2.jsonl", files[days[1]], true))
	if sum.Fail != 0 || sum.ChainsOutside == 0 {
		t.Errorf("against an archive of the next day: %+v", sum)
	}
}

// TestDeliveredTwice: every line of a clean archive delivered twice, in
// one file, in two files, and in a second run against the first as its
// archive: every receipt PASSes and every second delivery is counted as
// a duplicate. A forged receipt reusing a nonce replays nothing.
func TestDeliveredTwice(t *testing.T) {
	t.Parallel()
	lines, v := dayArchive(t)
	n := int64(len(lines))
	var twice []byte
	for _, l := range lines {
		twice = append(append(twice, l...), l...)
	}
	all := bytes.Join(lines, nil)
	for name, srcs := range map[string][]Source{
		"one file":  {memSource("twice.jsonl", twice, true)},
		"two files": {memSource("a.jsonl", all, true), memSource("b.jsonl", all, true)},
	} {
		sum, out := runOpts(t, v, Options{limits: indexLimits{entries: 64, judgments: 64}}, srcs...)
		if sum.Pass != 2*n || sum.Duplicates != n || len(out) != int(2*n) {
			t.Errorf("%s: %+v", name, sum)
		}
	}

	// Across runs: the first run's receipts are the archive.
	prior := &memPrior{}
	runOpts(t, v, Options{}, memSource("a.jsonl", all, true))
	for _, l := range lines {
		res, _ := v.Verify(bytes.TrimSpace(l))
		prior.add(res)
	}
	sum, _ := runOpts(t, v, Options{Prior: prior, limits: indexLimits{priorBatch: 7}}, memSource("b.jsonl", all, true))
	if sum.Pass != n || sum.Duplicates != n {
		t.Errorf("against the archive: %+v", sum)
	}

	// A replay: another receipt that reuses the first one's nonce.
	var first map[string]any
	if err := json.Unmarshal(lines[0], &first); err != nil {
		t.Fatal(err)
	}
	var second map[string]any
	if err := json.Unmarshal(lines[1], &second); err != nil {
		t.Fatal(err)
	}
	second["payload"].(map[string]any)["nonce"] = first["payload"].(map[string]any)["nonce"]
	replay, err := json.Marshal(second)
	if err != nil {
		t.Fatal(err)
	}
	// Changed after signing, it is a claim: it fails on its signature
	// and its nonce counts for nothing, the genuine receipt's judgment
	// standing (a genuine replay: the asqav-native interop vector
	// ml-dsa-65-delivered-twice-then-a-replay).
	in := append(append(append([]byte{}, lines[0]...), lines[0]...), append(replay, '\n')...)
	_, out := runOpts(t, v, Options{}, memSource("replay.jsonl", in, true))
	if out[1].Axes.Of(verify.AxisNonce).Status != verify.StatusPass || out[2].Axes.Of(verify.AxisNonce).Status != verify.StatusNotRun ||
		!slices.Contains(out[2].Reasons, verify.ReasonBadSignature) {
		t.Fatalf("delivered again, then a forged replay: %+v / %+v %v", out[1].Axes.Of(verify.AxisNonce), out[2].Axes.Of(verify.AxisNonce), out[2].Reasons)
	}
}

// memPrior is an archive in memory, for Options.Prior.
type memPrior struct {
	owners map[string]string // chain hash prefix: scope digest
	named  map[string]bool
	nonces map[string]bool
	scopes []heldScope // of every receipt with a chain hash
}

type heldScope struct {
	digest    string
	issued    int64
	hasIssued bool
}

// memScopesPrior is a memPrior that knows its chain scopes
// (PriorScopes).
type memScopesPrior struct{ *memPrior }

func (p *memScopesPrior) Scopes(_ context.Context, qs []ScopeQuery) (map[string]bool, error) {
	out := map[string]bool{}
	for _, q := range qs {
		for _, s := range p.scopes {
			if s.digest == q.Digest && (!s.hasIssued || !q.HasBefore || s.issued < q.Before) {
				out[q.Digest] = true
			}
		}
	}
	return out, nil
}

func (p *memPrior) add(r *verify.Result) {
	if p.owners == nil {
		p.owners, p.named, p.nonces = map[string]string{}, map[string]bool{}, map[string]bool{}
	}
	if h := r.Fingerprints.ChainHash; len(h) >= 32 {
		p.owners[h[:32]] = ScopeDigest(r.ScopeKey())
		t, ok := r.IssuedTime()
		p.scopes = append(p.scopes, heldScope{ScopeDigest(r.ScopeKey()), t.UnixMicro(), ok})
	}
	if prev, genesis, ok := r.ChainLink(); ok && !genesis && len(prev) >= 32 {
		p.named[prev[:32]] = true
	}
	if d := NonceDigest(r.NonceKey()); d != "" {
		p.nonces[d] = true
	}
}

func (p *memPrior) Links(_ context.Context, prefixes []string) (map[string]PriorLink, error) {
	out := map[string]PriorLink{}
	for _, k := range prefixes {
		scope, found := p.owners[k]
		if found || p.named[k] {
			out[k] = PriorLink{Found: found, ScopeDigest: scope, Named: p.named[k]}
		}
	}
	return out, nil
}

func (p *memPrior) Nonces(_ context.Context, digests []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, d := range digests {
		if p.nonces[d] {
			out[d] = true
		}
	}
	return out, nil
}
