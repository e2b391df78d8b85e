package streamrun

import (
	"crypto/sha256"
	"encoding/hex"
	"github.com/receiptverify/verify/verify"
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
	// Claim: the receipt is not evidence (verify.Result.Evidence), its
	// signature not verified: the index keeps only its chain hash (index.add),
	// so that it takes no chain start, link or nonce from a genuine
	// receipt, and judge reports the position it claims.
	Claim bool
}

// Index returns the receipt's entry for a stream's chain and nonce index,
// from its verification.
func Index(r *verify.Result) IndexEntry {
	var e IndexEntry
	if r.Verdict == verify.Unreadable || r.Format == "unknown" {
		return e
	}
	e.OK = true
	e.Claim = !r.Evidence()
	if h := r.Fingerprints.ChainHash; h != "" {
		e.HasHash = decodeHash(h, &e.ChainHash)
	}
	if prev, genesis, present := r.ChainLink(); present && !genesis {
		e.HasLink = decodeHash(prev, &e.Link)
		if !e.HasLink { // a link that is not a SHA-256 hex still names something
			e.Link = sha256.Sum256([]byte(prev))
			e.HasLink = true
		}
	}
	e.Scope = r.ScopeKey()
	e.NonceKey = r.NonceKey()
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
