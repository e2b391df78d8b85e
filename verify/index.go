package verify

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/receiptverify/verify/verify/internal/hook"
)

// indexEntry returns the receipt's entry for a stream's chain and nonce
// index (hook.Stream.IndexEntry), from its verification.
func (r *Result) indexEntry() hook.IndexEntry {
	var e hook.IndexEntry
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
