package verify_test

import (
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

// The interop suite: receipts made by each format's own producer code,
// one directory per vector, testdata/interop/<format>/<case>/:
//
//	receipt.json      one receipt (or receipts.jsonl, a chain, one per line)
//	<key files>       as --keys takes them, named in expected.json "keys"
//	predecessor.json  optional, as --predecessor takes it
//	expected.json     interopExpected
//
// and testdata/interop/<format>/PROVENANCE.md naming the producer, its
// version and the functions called.
const interopRoot = "../testdata/interop"

// interopDefaultAt is the judging instant of a vector that names none:
// late, as an auditor reads an archive, so that no receipt is in the
// future. Expiry never folds a verdict, so lateness changes none.
var interopDefaultAt = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)

// interopFallbackKeys are the key files loaded, in this order, when
// expected.json names none.
var interopFallbackKeys = []string{"jwks.json", "keys.json", "acta-keys.json", "did_map.json"}

// interopExpected is a vector's expected.json.
type interopExpected struct {
	Format  string          `json:"format"`
	Verdict verify.Verdict  `json:"verdict"`
	Reasons []verify.Reason `json:"reasons"`
	// Lines are the verdicts of a receipts.jsonl, one per receipt, in
	// place of Verdict and Reasons.
	Lines []struct {
		Verdict verify.Verdict  `json:"verdict"`
		Reasons []verify.Reason `json:"reasons"`
	} `json:"lines"`
	Keys []string `json:"keys"` // key files, as --keys takes them
	At   string   `json:"at"`   // the judging instant, as --at takes it
	// ProducerVerdict is what the producer's own verifier said ("" when it
	// has none); Policy says why this tool's verdict differs, when it does.
	ProducerVerdict string `json:"producer_verdict"`
	Policy          string `json:"policy"`
	// SignatureNote is a phrase the signature axis's note must hold, for a
	// verdict whose reason only the note gives (the normalized form that
	// would have verified, say).
	SignatureNote string `json:"signature_note"`
}

// TestInterop runs every interop vector through the library (verify.New,
// Verify) and through stream.Run, as `verify receipts` does, and checks
// the detected format, the verdict and the reason codes. A vector whose
// expected verdict is not its producer's must say why (policy), and none
// that its producer fails may pass.
func TestInterop(t *testing.T) {
	t.Parallel()
	found, err := filepath.Glob(filepath.Join(interopRoot, "*", "*", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		t.Fatal("no interop vectors under " + interopRoot)
	}
	formats := map[string]bool{}
	for _, path := range found {
		dir := filepath.Dir(path)
		format := filepath.Base(filepath.Dir(dir))
		formats[format] = true
		t.Run(format+"/"+filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			runInteropVector(t, dir)
		})
	}
	for format := range formats {
		if _, err := os.Stat(filepath.Join(interopRoot, format, "PROVENANCE.md")); err != nil {
			t.Errorf("%s has no PROVENANCE.md", format)
		}
	}
}

func runInteropVector(t *testing.T, dir string) {
	var exp interopExpected
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "expected.json")), &exp); err != nil {
		t.Fatalf("expected.json: %v", err)
	}
	receiptPath, lines := filepath.Join(dir, "receipt.json"), false
	if _, err := os.Stat(receiptPath); err != nil {
		receiptPath, lines = filepath.Join(dir, "receipts.jsonl"), true
	}
	type want struct {
		verdict verify.Verdict
		reasons []verify.Reason
	}
	var wants []want
	if lines {
		for _, l := range exp.Lines {
			wants = append(wants, want{l.Verdict, l.Reasons})
		}
	} else {
		wants = []want{{exp.Verdict, exp.Reasons}}
	}
	if len(wants) == 0 {
		t.Fatal("expected.json names no verdict")
	}
	for _, w := range wants {
		switch w.verdict {
		case verify.Pass, verify.Fail, verify.Incomplete:
		default:
			t.Fatalf("expected verdict %q", w.verdict)
		}
		if !lines && exp.ProducerVerdict != "" && string(w.verdict) != exp.ProducerVerdict && exp.Policy == "" {
			t.Errorf("verdict %s where the producer says %s, and no policy says why", w.verdict, exp.ProducerVerdict)
		}
		if exp.ProducerVerdict == string(verify.Fail) && w.verdict == verify.Pass {
			t.Errorf("the producer fails this vector; it must not pass")
		}
	}

	v := interopVerifier(t, dir, exp)
	check := func(path string, i int, res *verify.Result) {
		t.Helper()
		if i >= len(wants) {
			t.Errorf("%s: receipt %d has no expected verdict", path, i+1)
			return
		}
		w := wants[i]
		if res.Format != exp.Format {
			t.Errorf("%s: receipt %d: format %s, want %s", path, i+1, res.Format, exp.Format)
		}
		got := res.Reasons
		if got == nil {
			got = []verify.Reason{}
		}
		wr := w.reasons
		if wr == nil {
			wr = []verify.Reason{}
		}
		if note := res.Axes.Of(verify.AxisSignature).Note; !strings.Contains(note, exp.SignatureNote) {
			t.Errorf("%s: receipt %d: signature note %q lacks %q", path, i+1, note, exp.SignatureNote)
		}
		if res.Verdict != w.verdict || !slices.Equal(got, wr) {
			b, _ := json.MarshalIndent(res.Axes, "", "  ")
			t.Errorf("%s: receipt %d: %s %v, want %s %v\n%s", path, i+1, res.Verdict, got, w.verdict, wr, b)
		}
	}

	// The library, receipt by receipt (a chain's links are the stream's).
	raw := mustRead(t, receiptPath)
	if !lines {
		res, err := v.Verify(raw)
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
		check("Verify", 0, res)
	} else {
		i := 0
		for _, line := range splitLines(raw) {
			res, _ := v.Verify(line)
			if res.Format != exp.Format {
				t.Errorf("Verify: receipt %d: format %s, want %s", i+1, res.Format, exp.Format)
			}
			i++
		}
	}

	// The stream, as `verify receipts` runs it.
	var opts stream.Options
	if pred, err := os.ReadFile(filepath.Join(dir, "predecessor.json")); err == nil {
		opts.Predecessors = [][]byte{pred}
	}
	src := stream.Source{Name: receiptPath, Lines: lines, Open: func() (io.ReadCloser, error) { return os.Open(receiptPath) }}
	n := 0
	_, err := stream.Run(context.Background(), v, []stream.Source{src}, opts, func(r *verify.Result) error {
		check("stream.Run", n, r)
		n++
		return nil
	})
	if err != nil {
		t.Fatalf("stream.Run: %v", err)
	}
	if n != len(wants) {
		t.Errorf("stream.Run gave %d results, want %d", n, len(wants))
	}
}

// interopVerifier builds the verifier as the CLI does from --keys, --at and
// --predecessor.
func interopVerifier(t *testing.T, dir string, exp interopExpected) *verify.Verifier {
	names := exp.Keys
	if names == nil {
		for _, n := range interopFallbackKeys {
			if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
				names = append(names, n)
			}
		}
	}
	var snaps []*keys.Snapshot
	for _, n := range names {
		p := filepath.Join(dir, n)
		s, err := keys.Load(p, mustRead(t, p))
		if err != nil {
			t.Fatalf("keys %s: %v", n, err)
		}
		snaps = append(snaps, s)
	}
	d, err := keys.NewDirectory(snaps...)
	if err != nil {
		t.Fatal(err)
	}
	at := interopDefaultAt
	if exp.At != "" {
		if at, err = time.Parse(time.RFC3339Nano, exp.At); err != nil {
			t.Fatalf("at: %v", err)
		}
	}
	opts := []verify.Option{verify.WithTime(at)}
	if pred, err := os.ReadFile(filepath.Join(dir, "predecessor.json")); err == nil {
		opts = append(opts, verify.WithPredecessor(pred))
	}
	v, err := verify.New(d, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// splitLines is the non-blank lines of a JSON Lines file.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		line := b[:i]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if len(line) > 0 {
			out = append(out, line)
		}
		if i == len(b) {
			break
		}
		b = b[i+1:]
	}
	return out
}
