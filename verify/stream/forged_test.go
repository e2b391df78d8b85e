package stream

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/vectors"
	"github.com/receiptverify/verify/verify"
)

// forgedChains are the vectors holding a genuine chain of each chaining
// format: a predecessor.json and its successor, or a receipts.jsonl.
var forgedChains = []string{
	"interop/pipelock-action-v1/chain",
	"interop/asqav-native/ml-dsa-65-chain-link",
	"interop/agentreceipts/wal-chain-link",
	"interop/agentreceipts-go/v0.4.0-chain",
	"interop/aerf/chain-link",
	"receipts/acta-02-chain-link",
	"interop/trustproof/chain",
}

// issuedDate is the first date of a receipt: forge changes its year, a
// signed member every format has, leaving the link and the chain's scope.
var issuedDate = regexp.MustCompile(`"20[0-9]{2}-[0-9]{2}-[0-9]{2}T`)

// forge is a copy of a genuine receipt changed after signing: the same
// chain, link and nonce, another chain hash, a signature that fails. A
// compact JWS has its payload changed.
func forge(t *testing.T, genuine []byte) []byte {
	t.Helper()
	if parts := bytes.Split(genuine, []byte(".")); len(parts) == 3 && bytes.HasPrefix(genuine, []byte("eyJ")) {
		payload, err := base64.RawURLEncoding.DecodeString(string(parts[1]))
		if err != nil {
			t.Fatal(err)
		}
		parts[1] = []byte(base64.RawURLEncoding.EncodeToString(forge(t, payload)))
		return bytes.Join(parts, []byte("."))
	}
	loc := issuedDate.FindIndex(genuine)
	if loc == nil {
		t.Fatalf("no date to change in %.200s", genuine)
	}
	out := bytes.Clone(genuine)
	out[loc[0]+4] ^= 1 // the year's last digit, another digit
	return out
}

// TestForgedNeighbours: forged receipts of a genuine chain, placed before
// its receipts or among them (same chain, plausible links, the same
// nonces), fail on their own and name the position they claim; every
// genuine receipt gets exactly the verdict and reasons, axis by axis, it
// gets without them. Before, two forged receipts of its chain before a
// genuine receipt whose chain starts before the input turned it from
// PASS into chain_absent, and a forged receipt naming a predecessor
// first made its genuine successor a fork (and a nonce replay).
func TestForgedNeighbours(t *testing.T) {
	t.Parallel()
	cases := map[string]vectors.Case{}
	for _, c := range vectors.Cases(t, "../..") {
		cases[c.Name] = c
	}
	for _, name := range forgedChains {
		c, ok := cases[name]
		if !ok {
			t.Fatalf("no vector %s", name)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := vectorVerifier(t, c)
			// One receipt a line: a receipt.json's members, which its
			// format signs in canonical form, on one line.
			var chain [][]byte
			for _, name := range []string{c.Predecessor, c.Input} {
				switch {
				case name == "":
				case strings.HasSuffix(name, ".jsonl"):
					for _, l := range bytes.Split(readVector(t, filepath.Join(c.Dir, name)), []byte("\n")) {
						if l = bytes.TrimSpace(l); len(l) > 0 {
							chain = append(chain, l)
						}
					}
				default:
					var b bytes.Buffer
					if err := json.Compact(&b, readVector(t, filepath.Join(c.Dir, name))); err != nil {
						t.Fatal(err)
					}
					chain = append(chain, b.Bytes())
				}
			}
			if len(chain) < 2 {
				t.Fatalf("a chain of %d", len(chain))
			}
			last := chain[len(chain)-1]
			var forgedBefore, among [][]byte
			for i, g := range chain {
				f := forge(t, g)
				if i < len(chain)-1 {
					forgedBefore = append(forgedBefore, f)
				}
				among = append(among, f, g)
			}
			for _, tc := range []struct {
				name          string
				without, with [][]byte
				wantPass      bool
			}{
				// The case: the chain's last receipt alone starts
				// before the input; forged receipts of the chain before it.
				{"mid-stream", [][]byte{last}, append(forgedBefore, last), false},
				// Each genuine receipt after a forged copy of itself.
				{"among", chain, among, true},
			} {
				want := runLines(t, v, tc.without)
				got := runLines(t, v, tc.with)
				for _, g := range tc.without {
					w, r := want[string(g)], got[string(g)]
					if tc.wantPass && w.Verdict != verify.Pass {
						t.Errorf("%s: the genuine chain alone: %s %v", tc.name, w.Verdict, w.Reasons)
					}
					if d := axesDiff(w, r); d != "" {
						t.Errorf("%s: a genuine receipt beside forged ones: %s\nwithout %v %v, with %v %v", tc.name, d, w.Verdict, w.Reasons, r.Verdict, r.Reasons)
					}
				}
				for _, f := range tc.with {
					r, forged := got[string(f)], true
					for _, g := range tc.without {
						forged = forged && !bytes.Equal(f, g)
					}
					if !forged {
						continue
					}
					if r.Verdict != verify.Fail || r.Evidence() {
						t.Errorf("%s: a forged receipt: %s %v", tc.name, r.Verdict, r.Reasons)
					}
					if ax := r.Axes.Of(verify.AxisChain); !strings.Contains(ax.Note, "claims chain position ") {
						t.Errorf("%s: a forged receipt's chain axis: %+v", tc.name, ax)
					}
				}
			}
		})
	}
}

// runLines runs the receipts as one file and returns each one's result by
// its bytes.
func runLines(t *testing.T, v *verify.Verifier, lines [][]byte) map[string]*verify.Result {
	t.Helper()
	data := append(bytes.Join(lines, []byte("\n")), '\n')
	out := map[string]*verify.Result{}
	i := 0
	if _, err := Run(context.Background(), v, []Source{memSource("in.jsonl", data, true)}, Options{}, func(r *Record) error {
		out[string(lines[i])] = r.Result
		i++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// axesDiff compares two results' verdicts, reasons and every axis's status
// and reason (notes name records, which differ).
func axesDiff(a, b *verify.Result) string {
	if a.Verdict != b.Verdict || !equalReasons(a.Reasons, b.Reasons) {
		return "verdict " + string(a.Verdict) + " became " + string(b.Verdict)
	}
	for _, name := range verify.AxisOrder() {
		x, y := a.Axes.Of(name), b.Axes.Of(name)
		if x.Status != y.Status || x.Reason != y.Reason {
			return "axis " + string(name) + ": " + string(x.Status) + " " + string(x.Reason) + " became " + string(y.Status) + " " + string(y.Reason)
		}
	}
	return ""
}

func equalReasons(a, b []verify.Reason) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
