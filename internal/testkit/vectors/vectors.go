// Package vectors is the project's test kit: it reads the test vectors
// under testdata/ for the tests of every package. [Cases] walks the receipt
// vectors for the tests of every path a receipt takes (the library, the
// stream, the command), so that each runs the same cases with the same
// expectations; [ReadJSONL] reads a JSON Lines vector file. It imports
// nothing of the project, so that any package's own tests may use it;
// loading a generated corpus's trust material is receiptgen's job.
package vectors

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// A Case is one vector directory, walked the same way by the library's,
// the stream's and the command's tests:
//
//	testdata/receipts/<case>/           the conformance corpus
//	testdata/interop/<format>/<case>/   receipts made by the producers' own code
//
// A case directory holds the input (receipt.json, one receipt, or
// receipts.jsonl, one per line), its key files, an optional
// predecessor.json and expected.json.
//
// An interop format's directory has a PROVENANCE.md (producer, version or
// commit, functions called). An interop case's expected.json is the tool's
// expectation itself:
//
//	{"format", "verdict", "reasons", "producer_verdict", "policy"}
//
// with optional "at" (the judging instant, RFC 3339; default InteropAt),
// "completeness" ({"status", "producer"}: the chain's completeness verdict
// and the producer's own),
// "genuine" (why a receipt the producer fails may pass: it is genuine and
// the producer misjudges it; only with a policy),
// "keys" (the key files, when their names do not say so) and "lines" (one
// {"verdict", "reasons"} per line of receipts.jsonl, when they differ; the
// format is the top-level one unless a line names its own). Other members
// (note, why) are for people. A corpus case's expected.json is the published one ({format,
// outcome, reason_code}); what this tool answers for it is in
// testdata/receipts/tool-expected.json, keyed by case, and an outcome that
// differs from the corpus's says why there (policy).
type Case struct {
	Name        string // "receipts/acta-02-chain-link", "interop/dsse/ecdsa-der"
	Dir         string
	Input       string   // file name: receipt.json or receipts.jsonl
	Keys        []string // key file names, in the order given to --keys
	Predecessor string   // "predecessor.json" or ""
	At          string   // RFC 3339, "" for the time of the run
	Lines       []Want   // one per receipt of the input
	// FailAxis is the axis the corpus's reason_code says must fail; ""
	// for interop cases.
	FailAxis string
	// ProducerVerdict is what the producer's own verifier says, where it
	// has one, and Policy why the tool answers otherwise.
	ProducerVerdict, Policy string
	// Completeness is the completeness verdict of the case's chain
	// (complete, open, interrupted, truncated, unknown), "" when the case
	// does not say; ProducerCompleteness is what the producer's own
	// completeness check answers, in its words.
	Completeness, ProducerCompleteness string
}

// Want is what the tool must answer for one receipt.
type Want struct {
	Format  string   `json:"format"`
	Verdict string   `json:"verdict"`
	Reasons []string `json:"reasons"`
	// SignatureNote is a phrase the signature axis's note must hold, for a
	// verdict that rests on a form the note names (an interop case's
	// signature_note).
	SignatureNote string `json:"signature_note"`
}

// CorpusAt is the judging instant of the conformance corpus: after every
// receipt was issued. Expiry never folds the verdict, so its choice does not
// change an outcome.
const CorpusAt = "2026-07-01T00:00:00Z"

// InteropAt judges an interop case that names no instant: after every
// receipt was made, so none is in the future.
const InteropAt = "2100-01-01T00:00:00Z"

// CorpusCases is the number of cases of the conformance corpus.
const CorpusCases = 52

// corpusReasonAxis maps the corpus's reason codes to the axis that must fail.
var corpusReasonAxis = map[string]string{
	"issuer_signature": "signature",
	"sig_mismatch":     "signature",
	"pdp_signature":    "signature",
	"parent_signature": "signature",
	"key_revoked":      "key_status",
	"chain":            "chain",
	"schema":           "structure",
}

// Cases returns every case under root/testdata, corpus first, then the
// interop suite (absent until it exists), each in name order. An
// expectation it cannot read fails tb.
func Cases(tb testing.TB, root string) []Case {
	tb.Helper()
	cases := corpusCases(tb, filepath.Join(root, "testdata", "receipts"))
	interop, _ := filepath.Glob(filepath.Join(root, "testdata", "interop", "*", "*", "expected.json"))
	sort.Strings(interop)
	seen := map[string]bool{}
	for _, exp := range interop {
		cases = append(cases, interopCase(tb, filepath.Dir(exp)))
		if f := filepath.Dir(filepath.Dir(exp)); !seen[f] {
			seen[f] = true
			if _, err := os.Stat(filepath.Join(f, "PROVENANCE.md")); err != nil {
				tb.Fatalf("%s has no PROVENANCE.md naming its producer", f)
			}
		}
	}
	return cases
}

func corpusCases(tb testing.TB, dir string) []Case {
	tb.Helper()
	var tool map[string]struct {
		Want
		Policy string `json:"policy"`
	}
	readJSON(tb, filepath.Join(dir, "tool-expected.json"), &tool)
	expected, _ := filepath.Glob(filepath.Join(dir, "*", "expected.json"))
	sort.Strings(expected)
	if len(expected) != CorpusCases {
		tb.Fatalf("%s: found %d corpus cases, want %d", dir, len(expected), CorpusCases)
	}
	var out []Case
	for _, exp := range expected {
		caseDir := filepath.Dir(exp)
		name := filepath.Base(caseDir)
		var pub struct {
			Format     string `json:"format"`
			Outcome    string `json:"outcome"`
			ReasonCode string `json:"reason_code"`
		}
		readJSON(tb, exp, &pub)
		t, ok := tool[name]
		if !ok {
			tb.Fatalf("%s: no entry in tool-expected.json", name)
		}
		c := Case{Name: "receipts/" + name, Dir: caseDir, At: CorpusAt, ProducerVerdict: pub.Outcome, Policy: t.Policy}
		if t.Verdict == "" {
			t.Verdict = pub.Outcome
		}
		if t.Verdict != pub.Outcome && t.Policy == "" {
			tb.Fatalf("%s: the tool's verdict %s differs from the corpus's %s without a policy", name, t.Verdict, pub.Outcome)
		}
		if t.Verdict == "FAIL" {
			if c.FailAxis, ok = corpusReasonAxis[pub.ReasonCode]; !ok {
				tb.Fatalf("%s: unknown expected reason %q", name, pub.ReasonCode)
			}
		}
		fillFiles(tb, &c, nil)
		c.Lines = []Want{t.Want}
		out = append(out, c)
	}
	return out
}

func interopCase(tb testing.TB, dir string) Case {
	tb.Helper()
	var exp struct {
		Want
		ProducerVerdict string   `json:"producer_verdict"`
		Policy          string   `json:"policy"`
		Genuine         string   `json:"genuine"`
		At              string   `json:"at"`
		Keys            []string `json:"keys"`
		Lines           []Want   `json:"lines"`
		Completeness    struct {
			Status   string `json:"status"`
			Producer string `json:"producer"`
		} `json:"completeness"`
	}
	readJSON(tb, filepath.Join(dir, "expected.json"), &exp)
	rel := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
	if exp.At == "" {
		exp.At = InteropAt
	}
	c := Case{Name: "interop/" + rel, Dir: dir, At: exp.At, ProducerVerdict: exp.ProducerVerdict, Policy: exp.Policy,
		Completeness: exp.Completeness.Status, ProducerCompleteness: exp.Completeness.Producer}
	switch c.Completeness {
	case "", "complete", "open", "interrupted", "truncated", "unknown":
	default:
		tb.Fatalf("%s: unknown completeness status %q", c.Name, c.Completeness)
	}
	fillFiles(tb, &c, exp.Keys)
	n := 1
	if c.Input == "receipts.jsonl" {
		n = countLines(tb, filepath.Join(dir, c.Input))
	}
	switch {
	case len(exp.Lines) > 0:
		if len(exp.Lines) != n {
			tb.Fatalf("%s: expected.json has %d lines, the input %d receipts", c.Name, len(exp.Lines), n)
		}
		c.Lines = exp.Lines
		for i := range c.Lines {
			if c.Lines[i].Format == "" {
				c.Lines[i].Format = exp.Format
			}
		}
	default:
		for range n {
			c.Lines = append(c.Lines, exp.Want)
		}
	}
	for _, w := range c.Lines {
		if err := w.valid(); err != nil {
			tb.Fatalf("%s: %v", c.Name, err)
		}
	}
	// A verdict other than the producer's is a policy, and says why; and
	// none that the producer fails may pass, unless the case says why the
	// receipt is genuine all the same (genuine: a receipt the producer's
	// verifier misjudges, such as one signed by a key it never tries),
	// under a policy.
	pv := producerVerdict(exp.ProducerVerdict)
	if pv != "" && exp.Policy == "" && len(exp.Lines) == 0 && exp.Verdict != pv {
		tb.Fatalf("%s: verdict %s differs from the producer's %s without a policy", c.Name, exp.Verdict, exp.ProducerVerdict)
	}
	if exp.Genuine != "" && (exp.Policy == "" || pv != "FAIL") {
		tb.Fatalf("%s: genuine is only for a receipt the producer fails, under a policy", c.Name)
	}
	for _, w := range c.Lines {
		if pv == "FAIL" && w.Verdict == "PASS" && exp.Genuine == "" {
			tb.Fatalf("%s: the producer fails this vector; it must not pass", c.Name)
		}
	}
	return c
}

// producerVerdict reads a producer's verdict as written ("PASS", "valid",
// "invalid (signature)") as this tool's word for it, "" when it is none.
func producerVerdict(s string) string {
	word, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	switch strings.ToLower(word) {
	case "pass", "valid", "true", "ok":
		return "PASS"
	case "fail", "invalid", "false":
		return "FAIL"
	case "incomplete", "skipped":
		return "INCOMPLETE"
	}
	return ""
}

// valid refuses an expectation this runner cannot check.
func (w Want) valid() error {
	switch w.Verdict {
	case "PASS", "FAIL", "INCOMPLETE", "UNREADABLE":
	default:
		return fmt.Errorf("unknown expected verdict %q", w.Verdict)
	}
	if w.Format == "" {
		return fmt.Errorf("no expected format")
	}
	if w.Reasons == nil {
		return fmt.Errorf("no expected reasons (an empty list for none)")
	}
	return nil
}

// fillFiles finds the case's input, predecessor and key files. Without an
// explicit list, a key file is a .pem file, or a .json file whose name says
// key, jwk or did (acta-keys.json, jwks.json, did_map.json).
func fillFiles(tb testing.TB, c *Case, keys []string) {
	tb.Helper()
	entries, err := os.ReadDir(c.Dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == "receipt.json" || name == "receipts.jsonl":
			if c.Input != "" {
				tb.Fatalf("%s: both receipt.json and receipts.jsonl", c.Name)
			}
			c.Input = name
		case name == "predecessor.json":
			c.Predecessor = name
		case keys == nil && isKeyFile(name):
			c.Keys = append(c.Keys, name)
		}
	}
	if keys != nil {
		c.Keys = keys
	} else {
		// The usual names first, in the layout's order, then the rest.
		rank := func(n string) int {
			if i := slices.Index(usualKeyFiles, n); i >= 0 {
				return i
			}
			return len(usualKeyFiles)
		}
		slices.SortStableFunc(c.Keys, func(a, b string) int { return rank(a) - rank(b) })
	}
	if c.Input == "" {
		tb.Fatalf("%s: no receipt.json or receipts.jsonl", c.Name)
	}
}

// usualKeyFiles are the key file names the corpus and the interop layout
// use, in the order they are given to --keys.
var usualKeyFiles = []string{"jwks.json", "keys.json", "acta-keys.json", "did_map.json"}

func isKeyFile(name string) bool {
	if strings.HasSuffix(name, ".pem") {
		return true
	}
	if !strings.HasSuffix(name, ".json") {
		return false
	}
	if slices.Contains([]string{"expected.json", "manifest.json", "receipt.json", "predecessor.json"}, name) {
		return false
	}
	l := strings.ToLower(name)
	return strings.Contains(l, "key") || strings.Contains(l, "jwk") || strings.Contains(l, "did")
}

func countLines(tb testing.TB, path string) int {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

func readJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(v); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
}

// Check compares what the tool answered for one receipt with w and
// returns what differs, "" when nothing does. Reasons are compared in
// order (the order of the axes).
func (w Want) Check(format, verdict string, reasons []string) string {
	var diffs []string
	if format != w.Format {
		diffs = append(diffs, fmt.Sprintf("format %q, want %q", format, w.Format))
	}
	if verdict != w.Verdict {
		diffs = append(diffs, fmt.Sprintf("verdict %s, want %s", verdict, w.Verdict))
	}
	if !slices.Equal(reasons, w.Reasons) {
		diffs = append(diffs, fmt.Sprintf("reasons %q, want %q", reasons, w.Reasons))
	}
	return strings.Join(diffs, "; ")
}

// Instant is the case's judging instant: its At, or the time of the run.
func (c Case) Instant(tb testing.TB) time.Time {
	tb.Helper()
	if c.At == "" {
		return time.Now().UTC()
	}
	at, err := time.Parse(time.RFC3339, c.At)
	if err != nil {
		tb.Fatalf("%s: at: %v", c.Name, err)
	}
	return at
}
