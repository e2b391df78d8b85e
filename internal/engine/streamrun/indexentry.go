package streamrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
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
	// HasIssued: what orders it among archived receipts of its chain, and
	// (Order) among the receipts sharing its nonce, link or chain hash.
	Issued    int64
	HasIssued bool
	// Tiebreak orders receipts issued at the same instant: the first 16
	// bytes of the SHA-256 of the line's bytes (an archive's
	// line_sha256), which no file name or load order changes. Set by
	// the run that reads the line (SetTiebreak).
	Tiebreak [16]byte
	// Claim: the receipt is not evidence (verify.Result.Evidence), its
	// signature not verified: the index keeps only its chain hash (index.add),
	// so that it takes no chain start, link or nonce from a genuine
	// receipt, and judge reports the position it claims.
	Claim bool
}

// Order is where a receipt stands among those sharing a nonce, naming one
// predecessor or having one chain hash: by issue time (a receipt without
// one last), then by the SHA-256 of its line. The first in this order is
// the original, the first namer or the receipt first delivered, and the
// others its replays, forks or deliveries again, whatever order the files
// were read or loaded in. As bytes it compares as an archive's
// (issued_at NULLS LAST, line_sha256).
type Order [OrderLen]byte

// OrderLen is the size of an Order: the issue time (8 bytes) and the
// Tiebreak.
const OrderLen = 8 + 16

// Order returns the receipt's Order.
func (e IndexEntry) Order() Order {
	var o Order
	if e.HasIssued {
		// The sign bit flipped, earlier instants sort first as bytes.
		binary.BigEndian.PutUint64(o[:8], uint64(e.Issued)^1<<63)
	} else {
		copy(o[:8], noIssue[:])
	}
	copy(o[8:], e.Tiebreak[:])
	return o
}

var noIssue = [8]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// Before says whether o stands before p.
func (o Order) Before(p Order) bool { return bytes.Compare(o[:], p[:]) < 0 }

// Split is MakeOrder undone: o's issue time in Unix microseconds
// (math.MaxInt64 for a receipt without one, after every other) and its
// tiebreak in hex (32 "f"s for a row without a line hash).
func (o Order) Split() (issued int64, tiebreak string) {
	return int64(binary.BigEndian.Uint64(o[:8]) ^ 1<<63), hex.EncodeToString(o[8:])
}

// MakeOrder is the Order of a receipt issued at issued (Unix
// microseconds, when hasIssued) whose line has the SHA-256 lineSHA256
// (hex; its first 32 characters are read): how an archive gives the
// order of a stored receipt. Without a line hash (a row stored before
// archives kept one) it stands after every receipt issued at the same
// instant, as an archive's NULLS LAST orders it.
func MakeOrder(issued int64, hasIssued bool, lineSHA256 string) Order {
	e := IndexEntry{Issued: issued, HasIssued: hasIssued}
	if _, err := hex.Decode(e.Tiebreak[:], []byte(lineSHA256[:min(32, len(lineSHA256))])); err != nil || len(lineSHA256) < 32 {
		e.Tiebreak = [16]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	}
	return e.Order()
}

// SetTiebreak sets e.Tiebreak from the SHA-256 of the receipt's line.
func (e *IndexEntry) SetTiebreak(lineSum [sha256.Size]byte) {
	copy(e.Tiebreak[:], lineSum[:])
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
