package streamrun

import (
	"strings"

	"github.com/receiptverify/verify/internal/engine/chainscope"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/reason"
)

// FoldBase is what a record's final verdict takes from the checks that
// need the receipt alone, so that an engine can fold the judgments of
// chains and nonces into verdicts without this package
// (queries/shard/fold.sql): Folder.Fold and the SQL apply the same rule,
// and a test ties the two.
//
// The verdict folds the counted axes (verify.Result.Counts) in report
// order: structure, issuer_key, issuer_bind, key_status, signature, then
// chain, then payload_digest, action_ref, tool_fingerprint, then nonce,
// then expiry, skew, anchors. The judgments set only the chain and nonce
// axes, so the others are kept in three blocks around them, each a
// list of reasons with a comma before each: Fail the failed ones, Skip the
// skipped ones; Fail[0] and Skip[0] before the chain axis, [1] between
// chain and nonce, [2] after nonce. The verdict is FAIL when a block or
// the chain or nonce axis failed (its reasons: the failed ones in that
// order), else INCOMPLETE when a block or the nonce axis was skipped (a
// skipped chain counts not), else PASS.
type FoldBase struct {
	// Verdict and Reasons (joined by commas) are what Fold gives the
	// record when it has no judgment of its chain or nonce: an
	// UNREADABLE record's, or a receipt's with neither link nor nonce.
	Verdict, Reasons string
	Fail, Skip       [3]string
	// Chain and Nonce are the two axes before any judgment (Status ""
	// where the axis has no outcome), with their notes. A judgment sets
	// its axis unless the axis failed already: nothing overrides a FAIL.
	Chain, Nonce verify.Axis
	// What the notes of the judgments name: Prev the predecessor the
	// receipt names, What the field whose difference makes another
	// chain (chainscope.What), Claim what a receipt whose signature did
	// not verify and names a predecessor claims (ClaimedPosition and why
	// it is not counted, "" for any other), which follows its chain
	// judgment's note.
	Prev, What, Claim string
	// UnknownFormat: no format's detector claimed the receipt, so that
	// an INCOMPLETE verdict counts in Summary.UnknownFormat.
	UnknownFormat bool
}

// foldBaseOf is the FoldBase of a mapped result; state is its binary
// form, read back when the fold would change the result without any
// judgment (a receipt whose signature did not verify: judgeClaim).
func foldBaseOf(res *verify.Result, state []byte) FoldBase {
	var b FoldBase
	if res.Verdict != verify.Unreadable {
		b.Prev, _, _ = res.ChainLink()
		b.What = chainscope.What(res.Format)
		b.UnknownFormat = res.Format == verify.UnknownFormat && res.Axes.Of(verify.AxisStructure).Reason == verify.ReasonUnknownFormat
		if _, _, present := res.ChainLink(); present && !res.Evidence() {
			b.Claim = ClaimedPosition(res) + claimWhy
		}
	}
	if res.Verdict != verify.Unreadable && !res.Evidence() {
		c := new(verify.Result)
		if err := c.UnmarshalBinary(state); err == nil {
			judge(c, nil)
			res = c
		}
	}
	b.Verdict, b.Reasons = string(res.Verdict), reason.Join(res.Reasons)
	var fail, skip [3]strings.Builder
	block := 0 // before the chain axis, then between chain and nonce, then after nonce
	for _, name := range axisOrder {
		ax, ok := res.Axes.Get(name)
		switch {
		case name == verify.AxisChain:
			b.Chain, block = ax, 1
		case name == verify.AxisNonce:
			b.Nonce, block = ax, 2
		case !ok || !res.Counts(name):
		case ax.Status == verify.StatusFail:
			fail[block].WriteString("," + string(ax.Reason))
		case ax.Status == verify.StatusSkipped:
			skip[block].WriteString("," + string(ax.Reason))
		}
	}
	for i := range 3 {
		b.Fail[i], b.Skip[i] = fail[i].String(), skip[i].String()
	}
	return b
}

// axisOrder is verify.AxisOrder, read once.
var axisOrder = verify.AxisOrder()
