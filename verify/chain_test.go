package verify

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify/canon"
)

// TestChainScope: a link whose hash is the predecessor's still fails when
// the predecessor is of another chain by the format's scope (an ACTA one of
// another issuer), and passes across what the scope leaves out (an ACTA
// chain across two agents of one issuer, acta-02-chain-link).
func TestChainScope(t *testing.T) {
	dir := filepath.Join("..", "testdata", "receipts", "acta-02-chain-link")
	pred := string(readFile(t, filepath.Join(dir, "predecessor.json")))
	succ := string(readFile(t, filepath.Join(dir, "receipt.json")))

	judge := func(pred, succ string) Axis {
		t.Helper()
		v, err := New(nil, WithTime(corpusAt), WithPredecessor([]byte(pred)))
		if err != nil {
			t.Fatal(err)
		}
		res, _ := v.Verify([]byte(succ))
		return res.Axes.Of(AxisChain)
	}
	if ax := judge(pred, succ); ax.Status != StatusPass {
		t.Fatalf("two agents of one issuer: %+v", ax)
	}

	// The predecessor of another issuer, and a successor naming its hash.
	other := strings.ReplaceAll(pred, "sb:issuer:acta-oracle-vec-key", "sb:issuer:someone-else")
	doc, err := canon.Parse([]byte(other), receiptParse)
	if err != nil {
		t.Fatal(err)
	}
	h, err := actaChainHash(&doc)
	if err != nil {
		t.Fatal(err)
	}
	relinked := strings.Replace(succ, "2ac1941ca92e32ca8f5599f6acfabe3b7ca338b258734716fad1c7ddba70b28a", h, 1)
	if relinked == succ {
		t.Fatal("the successor's link was not found")
	}
	if ax := judge(other, relinked); ax.Status != StatusFail || ax.Reason != ReasonChainBreak {
		t.Fatalf("predecessor of another issuer: %+v", ax)
	}
	if got := chainScopeWhat("acta"); got != "issuer" {
		t.Fatalf("chainScopeWhat(acta) = %q", got)
	}
	s1, err := ChainScope([]byte(pred))
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := ChainScope([]byte(succ))
	s3, _ := ChainScope([]byte(other))
	if s1 != s2 || s1 == s3 || !strings.HasPrefix(s1, "acta\x00") {
		t.Fatalf("scopes %q %q %q", s1, s2, s3)
	}
}

// TestChainScopeWhat: every format whose chains have a scope names it for
// notes (result.ChainScopeWhat, the table the stream's index reads too),
// and a format without one says "format".
func TestChainScopeWhat(t *testing.T) {
	for i := range formats {
		f := &formats[i]
		got := chainScopeWhat(f.name)
		if scoped := f.chain != nil && f.chain.scope != nil; scoped == (got == "format") {
			t.Errorf("%s: scope what %q, its chain rule scoped: %v", f.name, got, scoped)
		}
	}
}
