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
