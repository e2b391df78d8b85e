package streamrun

import (
	"strconv"
	"strings"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/reason"
)

// judgeClaim reports the chain position and nonce a receipt that is not
// evidence (verify.Result.Evidence: its signature did not verify) claims.
// The index left it out, so it has no judgments and its neighbours have
// the verdicts they have without it; it fails, or is incomplete, on its
// own axes. Its chain axis is not judged (SKIPPED, which never changes a
// verdict) and says what it claims, so that a forged receipt planted
// among genuine ones is named as such.
func judgeClaim(res *verify.Result) {
	const why = ": not counted as evidence of the chain, as its signature did not verify"
	if prev, genesis, present := res.ChainLink(); present {
		setAxis(res, verify.AxisChain, verify.StatusSkipped, reason.ChainUnknown, ClaimedPosition(res, prev, genesis)+why)
	}
	if res.NonceKey() != "" {
		setAxis(res, verify.AxisNonce, verify.StatusNotRun, "", "not compared: a receipt whose signature did not verify uses no nonce")
	}
}

// ClaimedPosition names the chain position a receipt claims:
// "claims chain position 3 of pipelock-action-v1/<signer_key>, after
// <hash>"; without a sequence number, "claims chain position after
// <hash> of ...".
func ClaimedPosition(res *verify.Result, prev string, genesis bool) string {
	chain := strings.ReplaceAll(res.ScopeKey(), "\x00", "/")
	var b strings.Builder
	b.WriteString("claims chain position ")
	if s := res.Fields.Step; s != nil {
		b.WriteString(strconv.FormatInt(*s, 10))
		b.WriteString(" of ")
		b.WriteString(chain)
		if genesis {
			b.WriteString(", its first")
		} else {
			b.WriteString(", after ")
			b.WriteString(prev)
		}
		return b.String()
	}
	if genesis {
		b.WriteString("first of ")
	} else {
		b.WriteString("after ")
		b.WriteString(prev)
		b.WriteString(" of ")
	}
	b.WriteString(chain)
	return b.String()
}
