package verify

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/testkit/vectors"
	"github.com/receiptverify/verify/verify/keys"
)

// corpusAt is the judging instant for the conformance corpus: after every
// receipt was issued. Expiry never folds the verdict, so its choice does
// not change an outcome.
var corpusAt = time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)

// keyFiles are the key file names the corpus uses, one kind per format.
var keyFiles = []string{"jwks.json", "keys.json", "acta-keys.json", "did_map.json"}

// TestReceiptCorpus runs every vector (the 52 conformance receipts and the
// interop suite, one folder each) through Verify with its key files,
// predecessor and judging instant, as the library's user would: a single
// receipt gets the expected format, verdict and reason codes, and a failing
// corpus case fails the axis its reason code names. The receipts of a
// receipts.jsonl get their format here; their chains are a stream's to
// judge (stream.TestVectors, and the command's TestVectorScripts, which run
// every case). One reason differs by path on purpose: told that the given
// predecessor is the one, Verify calls a link to another receipt
// chain_mismatch, where the stream, which looks the link up in the whole
// input, calls it chain_absent; so where a case gives a predecessor, its
// chain_absent is expected here as chain_mismatch, and nothing else is.
func TestReceiptCorpus(t *testing.T) {
	t.Parallel()
	for _, c := range vectors.Cases(t, "..") {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			v := vectorVerifier(t, c)
			raw := readFile(t, filepath.Join(c.Dir, c.Input))
			if strings.HasSuffix(c.Input, ".jsonl") {
				i := 0
				for _, l := range bytes.Split(raw, []byte("\n")) {
					if len(bytes.TrimSpace(l)) == 0 {
						continue
					}
					if i >= len(c.Lines) {
						t.Fatalf("more receipts than the %d expected", len(c.Lines))
					}
					if res, _ := v.Verify(l); res.Format != c.Lines[i].Format {
						t.Errorf("receipt %d: format %s, want %s", i+1, res.Format, c.Lines[i].Format)
					}
					i++
				}
				return
			}
			res, _ := v.Verify(raw)
			reasons := make([]string, len(res.Reasons))
			for i, r := range res.Reasons {
				reasons[i] = string(r)
			}
			want := c.Lines[0]
			if c.Predecessor != "" {
				want.Reasons = slices.Clone(want.Reasons)
				for i, r := range want.Reasons {
					if r == string(ReasonChainAbsent) {
						want.Reasons[i] = string(ReasonChainMismatch)
					}
				}
			}
			if d := want.Check(res.Format, string(res.Verdict), reasons); d != "" {
				t.Fatalf("%s\n%s", d, dump(res))
			}
			if n := c.Lines[0].SignatureNote; n != "" && !strings.Contains(res.Axes.Of(AxisSignature).Note, n) {
				t.Fatalf("signature note lacks %q\n%s", n, dump(res))
			}
			if res.Verdict == Pass && res.Axes.Of(AxisSignature).Status != StatusPass {
				t.Fatalf("PASS without a passed signature axis\n%s", dump(res))
			}
			if c.FailAxis != "" && res.Axes.Of(AxisName(c.FailAxis)).Status != StatusFail {
				t.Fatalf("the corpus's reason says axis %s fails\n%s", c.FailAxis, dump(res))
			}
		})
	}
}

// vectorVerifier is the verifier of one vector: its key files, its
// predecessor, its judging instant.
func vectorVerifier(t testing.TB, c vectors.Case) *Verifier {
	t.Helper()
	var snaps []*keys.Snapshot
	for _, name := range c.Keys {
		s, err := keys.Load(name, readFile(t, filepath.Join(c.Dir, name)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		snaps = append(snaps, s)
	}
	d, err := keys.NewDirectory(snaps...)
	if err != nil {
		t.Fatal(err)
	}
	opts := []Option{WithTime(c.Instant(t))}
	if c.Predecessor != "" {
		opts = append(opts, WithPredecessor(readFile(t, filepath.Join(c.Dir, c.Predecessor))))
	}
	v, err := New(d, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func corpusVerifier(t testing.TB, dir string) *Verifier {
	t.Helper()
	var snaps []*keys.Snapshot
	for _, name := range keyFiles {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		s, err := keys.Load(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		snaps = append(snaps, s)
	}
	d, err := keys.NewDirectory(snaps...)
	if err != nil {
		t.Fatal(err)
	}
	opts := []Option{WithTime(corpusAt)}
	if pred, err := os.ReadFile(filepath.Join(dir, "predecessor.json")); err == nil {
		opts = append(opts, WithPredecessor(pred))
	}
	v, err := New(d, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dump(r *Result) string {
	b, _ := json.MarshalIndent(r, "", "  ")
	return string(b)
}
