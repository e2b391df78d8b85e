package verify

import "time"

// ScopeKey identifies the chain a receipt belongs to: its format and the
// members the format scopes its chains by (ChainScope); empty for a format
// whose receipts do not chain.
func (r *Result) ScopeKey() string { return r.link.Scope }

// NonceKey is the issuer and nonce a replay check compares; empty without
// a nonce.
func (r *Result) NonceKey() string { return nonceKeyOf(&r.Fields) }

func nonceKeyOf(f *Fields) string {
	if f.Nonce == "" {
		return ""
	}
	return firstNonEmpty(f.IssuerID, f.OrgID) + "\x00" + f.Nonce
}

// ChainLink returns what the receipt names as its predecessor (normalized
// hex), whether that is the genesis seed, and whether it carries a link
// at all.
func (r *Result) ChainLink() (prev string, genesis, present bool) {
	return r.link.Prev, r.link.Genesis, r.link.Present
}

// IssuedTime is the receipt's issued_at as the verifier reads it (every
// form the verifier accepts, in UTC), so that a caller filing receipts by
// time agrees with the skew check; false when it carries none or it is
// unreadable.
func (r *Result) IssuedTime() (time.Time, bool) {
	if r.Fields.IssuedAt == "" {
		return time.Time{}, false
	}
	return parseTime(r.Fields.IssuedAt)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// Evidence reports whether the receipt counts as evidence of its place
// among other receipts: of the chain position it claims (a chain begun, a
// predecessor named, a sequence number taken) and of the nonce it uses.
// Only a receipt whose signature verified under a key the key directory
// gave (not one it merely embeds), bound to its issuer and not revoked,
// does: anyone can write a receipt that names any predecessor, sequence
// number or nonce, and one whose signature did not verify must not move
// the verdict of a genuine neighbour. Checks across receipts (a stream's
// index, the archive of earlier loads, the sharded judgments) count only
// receipts for which it is true; the others are judged on their own and
// reported as claiming their position. Verdicts of checks across
// receipts do not change it.
func (r *Result) Evidence() bool {
	if r.Verdict == Unreadable || r.Axes.Of(AxisSignature).Status != StatusPass {
		return false
	}
	if st := r.Axes.Of(AxisIssuerKey).Status; st == StatusFail || st == StatusSkipped {
		return false
	}
	return r.Axes.Of(AxisIssuerBind).Status != StatusFail && r.Axes.Of(AxisKeyStatus).Status != StatusFail
}
