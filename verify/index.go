package verify

import (
	"crypto/sha256"
	"encoding/hex"
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
	Scope     string   // the format and its chain scope (ChainScope): receipts of one chain share it
	NonceKey  string   // issuer and nonce; empty without a nonce
}

// IndexEntry returns the receipt's entry for a stream's chain and nonce
// index, from its verification.
func (r *Result) IndexEntry() IndexEntry {
	var e IndexEntry
	if r.Verdict == Unreadable || r.Format == "unknown" {
		return e
	}
	e.OK = true
	if h := r.Fingerprints.ChainHash; h != "" {
		e.HasHash = decodeHash(h, &e.ChainHash)
	}
	if r.link.present && !r.link.genesis {
		e.HasLink = decodeHash(r.link.prev, &e.Link)
		if !e.HasLink { // a link that is not a SHA-256 hex still names something
			e.Link = sha256.Sum256([]byte(r.link.prev))
			e.HasLink = true
		}
	}
	e.Scope = r.link.scope
	e.NonceKey = nonceKeyOf(&r.Fields)
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
func (r *Result) ScopeKey() string { return r.link.scope }

// NonceKey is the issuer and nonce a replay check compares; empty without
// a nonce.
func (r *Result) NonceKey() string { return nonceKeyOf(&r.Fields) }

func nonceKeyOf(f *Fields) string {
	if f.Nonce == "" {
		return ""
	}
	return firstNonEmpty(f.IssuerID, f.OrgID) + "\x00" + f.Nonce
}
