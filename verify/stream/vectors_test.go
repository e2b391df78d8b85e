package stream

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/vectors"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/completeness"
	"github.com/receiptverify/verify/verify/keys"
)

// TestVectors runs every vector of the project (the conformance corpus and,
// when present, the interop suite) through Run as the command does: the
// case's key files as the key directory, its predecessor.json as a given
// predecessor, judged at its instant. Each receipt must get the expected
// format, verdict and reason codes. cmd/verify's TestVectorScripts runs the
// same cases through the binary.
func TestVectors(t *testing.T) {
	t.Parallel()
	for _, c := range vectors.Cases(t, "../..") {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			v := vectorVerifier(t, c)
			src := filepath.Join(c.Dir, c.Input)
			srcs := []Source{{Name: c.Input, Lines: strings.HasSuffix(c.Input, ".jsonl"),
				Open: func() (io.ReadCloser, error) { return os.Open(src) }}}
			var opts Options
			if c.Predecessor != "" {
				opts.Predecessors = [][]byte{readVector(t, filepath.Join(c.Dir, c.Predecessor))}
			}
			var got []*verify.Result
			_, err := Run(context.Background(), v, srcs, opts, func(r *Record) error {
				got = append(got, r.Result)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.Lines) {
				t.Fatalf("%d results, want %d", len(got), len(c.Lines))
			}
			for i, res := range got {
				reasons := make([]string, len(res.Reasons))
				for j, r := range res.Reasons {
					reasons[j] = string(r)
				}
				if d := c.Lines[i].Check(res.Format, string(res.Verdict), reasons); d != "" {
					t.Errorf("receipt %d: %s\n%s", i+1, d, dumpResult(res))
				}
				if c.FailAxis != "" && res.Axes.Of(verify.AxisName(c.FailAxis)).Status != verify.StatusFail {
					t.Errorf("receipt %d: the corpus's reason says axis %s fails\n%s", i+1, c.FailAxis, dumpResult(res))
				}
			}
			if c.Completeness != "" {
				vs := completeness.JudgeResults(got, c.Instant(t))
				if len(vs) != 1 || string(vs[0].Status) != c.Completeness {
					t.Errorf("completeness %+v, want one chain %s (the producer: %s)", vs, c.Completeness, c.ProducerCompleteness)
				}
			}
		})
	}
}

// vectorVerifier is the verifier a case's command line makes.
func vectorVerifier(t *testing.T, c vectors.Case) *verify.Verifier {
	t.Helper()
	var snaps []*keys.Snapshot
	for _, name := range c.Keys {
		s, err := keys.Load(name, readVector(t, filepath.Join(c.Dir, name)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
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
	return v
}

func readVector(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dumpResult(r *verify.Result) string {
	b, _ := json.MarshalIndent(r, "", "  ")
	return string(b)
}
