package completeness_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/vectors"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/completeness"
	"github.com/receiptverify/verify/verify/keys"
)

// TestVectorCompleteness: every interop case that names its chain's
// completeness verdict gets it from the receipts verified one by one
// (verify.Verify) and gathered with FromResults, as a library user would;
// verify/stream TestVectors and the command's TestVectorScripts check the
// same verdicts through stream.Run and the binary.
func TestVectorCompleteness(t *testing.T) {
	t.Parallel()
	for _, c := range vectors.Cases(t, "../..") {
		if c.Completeness == "" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			var snaps []*keys.Snapshot
			for _, name := range c.Keys {
				b, err := os.ReadFile(filepath.Join(c.Dir, name))
				if err != nil {
					t.Fatal(err)
				}
				s, err := keys.Load(name, b)
				if err != nil {
					t.Fatal(err)
				}
				snaps = append(snaps, s)
			}
			dir, err := keys.NewDirectory(snaps...)
			if err != nil {
				t.Fatal(err)
			}
			v, err := verify.New(dir, verify.WithTime(c.Instant(t)))
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join(c.Dir, c.Input))
			if err != nil {
				t.Fatal(err)
			}
			var results []*verify.Result
			for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
				res, err := v.Verify(l)
				if err != nil {
					t.Fatal(err)
				}
				results = append(results, res)
			}
			vs := completeness.JudgeResults(results, c.Instant(t))
			if len(vs) != 1 || string(vs[0].Status) != c.Completeness {
				t.Fatalf("verdicts %+v, want one chain %s (the producer: %s)", vs, c.Completeness, c.ProducerCompleteness)
			}
		})
	}
}
