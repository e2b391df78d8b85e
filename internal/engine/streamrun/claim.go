package streamrun

import (
	"strconv"
	"strings"

	"github.com/receiptverify/verify/verify"
)

// judgeClaim reports the chain position and nonce a receipt that is not
// evidence (verify.Result.Evidence: its signature did not verify) claims,
// once judge has judged its link. The index counted it for nothing but its
// chain hash, so its neighbours have the verdicts they have without it; it
// fails, or is incomplete, on its own axes, and its chain axis's note says
// what it claims, so that a forged receipt planted among genuine ones is
// named as such.
func judgeClaim(res *verify.Result) {
	_, _, present := res.ChainLink()
	ax, _ := res.Axes.Get(verify.AxisChain)
	note := ClaimedPosition(res) + claimWhy
	if ax.Note != "" {
		note = ax.Note + "; " + note
	}
	switch {
	case present:
		setAxis(res, verify.AxisChain, ax.Status, ax.Reason, note)
	case res.Fingerprints.ChainHash != "" && res.ScopeKey() != "":
		// No link: it would begin its chain in the input.
		setAxis(res, verify.AxisChain, verify.StatusNotRun, "", ClaimedPosition(res)+claimWhy)
	}
	if res.NonceKey() != "" {
		setAxis(res, verify.AxisNonce, verify.StatusNotRun, "", "not compared: a receipt whose signature did not verify uses no nonce")
	}
}

// claimWhy follows the position a claim takes in its chain axis's note.
const claimWhy = ": not counted as evidence of the chain, as its signature did not verify"

// ClaimedPosition names the chain position a receipt claims, its
// sequence number when it has one: "claims chain position 3 of
// pipelock-action-v1/<signer_key>, after <hash>"; "claims chain position
// after <hash> of <chain>"; "... at the start of <chain>" for a genesis
// link; "... in <chain>, naming no predecessor" without a link.
func ClaimedPosition(res *verify.Result) string {
	prev, genesis, present := res.ChainLink()
	chain := strings.ReplaceAll(res.ScopeKey(), "\x00", "/")
	var b strings.Builder
	b.WriteString("claims chain position ")
	if s := res.Fields.Step; s != nil {
		b.WriteString(strconv.FormatInt(*s, 10))
		b.WriteString(" of ")
		b.WriteString(chain)
		switch {
		case genesis:
			b.WriteString(", its first")
		case present:
			b.WriteString(", after ")
			b.WriteString(prev)
		}
		return b.String()
	}
	switch {
	case genesis:
		b.WriteString("at the start of ")
		b.WriteString(chain)
	case present:
		b.WriteString("after ")
		b.WriteString(prev)
		b.WriteString(" of ")
		b.WriteString(chain)
	default:
		b.WriteString("in ")
		b.WriteString(chain)
		b.WriteString(", naming no predecessor")
	}
	return b.String()
}
