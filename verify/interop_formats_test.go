package verify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/stream"
)

// formatsInteropAt judges the interop vectors: after every one was made.
var formatsInteropAt = time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)

// formatsInteropDirs are the producers' directories this walker reads.
var formatsInteropDirs = []string{"acta", "agentreceipts", "pipelock-evidence-v2", "aerf", "authproof"}

type formatsExpected struct {
	Format          string   `json:"format"`
	Verdict         string   `json:"verdict"`
	Reasons         []string `json:"reasons"`
	ProducerVerdict string   `json:"producer_verdict"`
	Policy          string   `json:"policy"`
	SignatureNote   string   `json:"signature_note"` // a phrase the signature axis's note must hold
}

// TestInteropFormats verifies every vector a producer's own code made,
// as a library call and through stream.Run (the path of `verify
// receipts`), and requires the expected verdict and format of both and
// the stream's reasons. A
// vector the producer's verifier rejects may never PASS.
func TestInteropFormats(t *testing.T) {
	n := 0
	for _, format := range formatsInteropDirs {
		cases, err := filepath.Glob(filepath.Join("..", "testdata", "interop", format, "*", "expected.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(cases) == 0 {
			t.Errorf("%s: no interop vectors", format)
		}
		for _, path := range cases {
			dir := filepath.Dir(path)
			n++
			t.Run(format+"/"+filepath.Base(dir), func(t *testing.T) { formatsInteropCase(t, dir) })
		}
	}
	t.Logf("%d interop vectors", n)
}

func formatsInteropCase(t *testing.T, dir string) {
	var want formatsExpected
	if err := json.Unmarshal(readInteropFile(t, filepath.Join(dir, "expected.json")), &want); err != nil {
		t.Fatal(err)
	}
	if want.Reasons == nil {
		want.Reasons = []string{}
	}
	v, pred := formatsInteropVerifier(t, dir)
	raw := readInteropFile(t, filepath.Join(dir, "receipt.json"))

	lib, err := v.Verify(raw)
	if err != nil {
		t.Fatal(err)
	}
	var got *verify.Result
	src := stream.Source{Name: "receipt.json", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil }}
	opts := stream.Options{Workers: 1}
	if pred != nil {
		opts.Predecessors = [][]byte{pred}
	}
	if _, err := stream.Run(context.Background(), v, []stream.Source{src}, opts, func(r *verify.Result) error {
		c := *r
		got = &c
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("stream.Run gave no result")
	}
	for _, r := range []struct {
		path string
		res  *verify.Result
	}{{"library", lib}, {"stream", got}} {
		reasons := make([]string, len(r.res.Reasons))
		for i, x := range r.res.Reasons {
			reasons[i] = string(x)
		}
		slices.Sort(reasons)
		wantReasons := slices.Sorted(slices.Values(want.Reasons))
		// The reasons are the stream's: it also judges links against the
		// whole input, where a library call sees one receipt.
		if string(r.res.Verdict) != want.Verdict || r.res.Format != want.Format || (r.path == "stream" && !slices.Equal(reasons, wantReasons)) {
			b, _ := json.MarshalIndent(r.res, "", "  ")
			t.Errorf("%s: got %s %s %v, want %s %s %v\n%s", r.path, r.res.Format, r.res.Verdict, reasons, want.Format, want.Verdict, wantReasons, b)
		}
		if note := r.res.Axes.Of(verify.AxisSignature).Note; !strings.Contains(note, want.SignatureNote) {
			t.Errorf("%s: signature note %q lacks %q", r.path, note, want.SignatureNote)
		}
		if r.res.Verdict == verify.Pass && strings.HasPrefix(want.ProducerVerdict, "invalid") {
			t.Errorf("%s: PASS for a receipt the producer's verifier rejects", r.path)
		}
	}
	if want.Verdict != formatsProducerVerdict(want.ProducerVerdict) && want.Policy == "" {
		t.Errorf("verdict %s differs from the producer's %q with no policy given", want.Verdict, want.ProducerVerdict)
	}
}

// formatsProducerVerdict maps a producer's valid/invalid to this tool's verdict.
func formatsProducerVerdict(s string) string {
	switch {
	case strings.HasPrefix(s, "valid"):
		return string(verify.Pass)
	case strings.HasPrefix(s, "invalid"):
		return string(verify.Fail)
	}
	return s
}

// formatsInteropVerifier loads every key file of a case (each file but the
// receipt, its predecessor and expected.json), as --keys would.
func formatsInteropVerifier(t *testing.T, dir string) (*verify.Verifier, []byte) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var snaps []*keys.Snapshot
	for _, e := range entries {
		switch e.Name() {
		case "receipt.json", "predecessor.json", "expected.json":
			continue
		}
		s, err := keys.Load(e.Name(), readInteropFile(t, filepath.Join(dir, e.Name())))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		snaps = append(snaps, s)
	}
	d, err := keys.NewDirectory(snaps...)
	if err != nil {
		t.Fatal(err)
	}
	opts := []verify.Option{verify.WithTime(formatsInteropAt)}
	pred, err := os.ReadFile(filepath.Join(dir, "predecessor.json"))
	if err == nil {
		opts = append(opts, verify.WithPredecessor(pred))
	} else {
		pred = nil
	}
	v, err := verify.New(d, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return v, pred
}

func readInteropFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
