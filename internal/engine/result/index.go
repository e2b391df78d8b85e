package result

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// IndexEntry is what a stream needs to know about a receipt to judge the
// chains and nonces of the whole input: its own chain hash, its link, the
// chain it belongs to, and its nonce. Nothing in it depends on keys: every
// format reads its fields and link from the document.
type IndexEntry struct {
	OK        bool     // the input is a receipt of a known format
	ChainHash [32]byte // what a successor names; zero when the format does not chain
	HasHash   bool
	Link      [32]byte // the predecessor named; valid when HasLink
	HasLink   bool     // a non-genesis link
	Scope     string   // the format and its chain scope (verify.ChainScope): receipts of one chain share it
	NonceKey  string   // issuer and nonce; empty without a nonce
	// Issued is the receipt's issue time in Unix microseconds, when
	// HasIssued: what orders it among archived receipts of its chain.
	Issued    int64
	HasIssued bool
}

// Index returns the receipt's entry for a stream's chain and nonce index,
// from its verification.
func Index(r *Result) IndexEntry {
	var e IndexEntry
	if r.Verdict == Unreadable || r.Format == "unknown" {
		return e
	}
	e.OK = true
	if h := r.Fingerprints.ChainHash; h != "" {
		e.HasHash = decodeHash(h, &e.ChainHash)
	}
	if r.link.Present && !r.link.Genesis {
		e.HasLink = decodeHash(r.link.Prev, &e.Link)
		if !e.HasLink { // a link that is not a SHA-256 hex still names something
			e.Link = sha256.Sum256([]byte(r.link.Prev))
			e.HasLink = true
		}
	}
	e.Scope = r.link.Scope
	e.NonceKey = nonceKeyOf(&r.Fields)
	if t, ok := r.IssuedTime(); ok {
		e.Issued, e.HasIssued = t.UnixMicro(), true
	}
	return e
}

func decodeHash(s string, dst *[32]byte) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.Decode(dst[:], []byte(s))
	return err == nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

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
// form ParseTime accepts, in UTC), so that a caller filing receipts by
// time agrees with the skew check; false when it carries none or it is
// unreadable.
func (r *Result) IssuedTime() (time.Time, bool) {
	if r.Fields.IssuedAt == "" {
		return time.Time{}, false
	}
	return ParseTime(r.Fields.IssuedAt)
}
