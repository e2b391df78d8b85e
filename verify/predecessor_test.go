package verify

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPredecessorLinkExact: a link to a given predecessor holds only when
// it is the predecessor's whole hash. A link cut short, or one with a
// digit more, names another receipt: never a PASS of the chain axis, nor
// of the receipt.
func TestPredecessorLinkExact(t *testing.T) {
	dir := filepath.Join("..", "testdata", "receipts", "acta-02-chain-link")
	pred := readFile(t, filepath.Join(dir, "predecessor.json"))
	succ := string(readFile(t, filepath.Join(dir, "receipt.json")))
	const link = "2ac1941ca92e32ca8f5599f6acfabe3b7ca338b258734716fad1c7ddba70b28a"
	if !strings.Contains(succ, link) {
		t.Fatal("the successor's link was not found")
	}
	v, err := New(nil, WithTime(corpusAt), WithPredecessor(pred))
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Verify([]byte(succ))
	if err != nil {
		t.Fatal(err)
	}
	if ax := res.Axes.Of(AxisChain); ax.Status != StatusPass {
		t.Fatalf("the whole hash: %+v", ax)
	}
	for name, l := range map[string]string{
		"cut by one digit": link[:63],
		"half":             link[:32],
		"one digit more":   link + "0",
	} {
		res, err := v.Verify([]byte(strings.Replace(succ, link, l, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if ax := res.Axes.Of(AxisChain); ax.Status == StatusPass || res.Verdict == Pass {
			t.Errorf("%s: chain %+v, verdict %s", name, ax, res.Verdict)
		}
	}
}
