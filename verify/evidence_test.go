package verify

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/vectors"
)

// TestEvidence: a receipt counts as evidence of its chain position and
// nonce only when its signature verified under a listed, bound key that
// is not revoked. A receipt changed after signing, signed by a key the
// directory does not list (though it verifies under the key it embeds),
// or by a revoked key does not, whatever else it passes; a genuine receipt does, also when a check across receipts
// (chain_absent, say) fails it later.
func TestEvidence(t *testing.T) {
	t.Parallel()
	cases := map[string]vectors.Case{}
	for _, c := range vectors.Cases(t, "..") {
		cases[c.Name] = c
	}
	for dir, want := range map[string]bool{
		"interop/pipelock-action-v1/chain":                 true,
		"interop/pipelock-action-v1/flipped-signature":     false,
		"interop/pipelock-action-v1/unknown-signer":        false,
		"interop/pipelock-action-v1/tampered-record":       false,
		"interop/asqav-native/ml-dsa-65-valid":             true,
		"interop/asqav-native/ml-dsa-65-tampered-decision": false,
		"interop/asqav-native/ml-dsa-65-unknown-key":       false,
		"interop/asqav-native/ml-dsa-65-revoked-at-issue":  false,
		"interop/agentreceipts/wal-chain-link":             true,
		"interop/agentreceipts/tampered-proof-value":       false,
		"interop/aerf/chain-link":                          true,
		"interop/aerf/tampered-signature":                  false,
		"receipts/acta-02-chain-link":                      true,
		"receipts/acta-03-tamper-sig":                      false,
	} {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			c, ok := cases[dir]
			if !ok {
				t.Fatalf("no vector %s", dir)
			}
			raw := readFile(t, filepath.Join(c.Dir, c.Input))
			if strings.HasSuffix(c.Input, ".jsonl") {
				raw, _, _ = bytes.Cut(raw, []byte("\n"))
			}
			res, err := vectorVerifier(t, c).Verify(raw)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Evidence(); got != want {
				t.Errorf("Evidence() = %v, want %v (%s %v)", got, want, res.Verdict, res.Reasons)
			}
			if want {
				res.Judge(AxisChain, Axis{Status: StatusFail, Reason: ReasonChainAbsent})
				if !res.Evidence() {
					t.Error("a check across receipts made it no evidence")
				}
			}
		})
	}
}
