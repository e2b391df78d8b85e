package verify

import (
	"errors"
	"strings"

	"github.com/receiptverify/verify/verify/canon"
)

// GenesisHash is the link of the first receipt of an Asqav chain.
const GenesisHash = "0000000000000000000000000000000000000000000000000000000000000000"

// chainLink is what a receipt says about its predecessor. prev is
// normalized: lowercase hex, no "sha256:" prefix.
type chainLink struct {
	present bool // the format chains and the receipt carries a link (or an explicit genesis)
	genesis bool
	prev    string
}

// chainRef is a predecessor given to the verifier.
type chainRef struct {
	hash   string
	format string
}

func chainRefOf(raw []byte) (*chainRef, error) {
	doc, err := canon.Parse(raw, receiptParse)
	if err != nil {
		return nil, err
	}
	f := detect(&doc)
	if f == nil {
		return nil, errors.New("not a receipt of any known format")
	}
	if f.chainHash == nil {
		return nil, errors.New(f.name + " receipts do not chain")
	}
	h, err := f.chainHash(&doc)
	if err != nil {
		return nil, err
	}
	return &chainRef{hash: h, format: f.name}, nil
}

// normalizeHash lowercases a hex digest and drops a "sha256:" prefix.
func normalizeHash(s string) string {
	return strings.ToLower(strings.TrimPrefix(s, "sha256:"))
}

// checkChain judges the link against a given predecessor. Without one, a
// non-genesis link is left SKIPPED here (which never makes a receipt
// INCOMPLETE); a stream run resolves it against the whole input.
func (c *check) checkChain() {
	if c.has(AxisChain) {
		return
	}
	l := c.link
	switch {
	case !l.present:
		c.notRun(AxisChain, "no chain link")
	case l.genesis:
		c.pass(AxisChain, "genesis")
	case c.v.predecessor != nil:
		if l.prev == c.v.predecessor.hash {
			c.pass(AxisChain, "links to the given predecessor")
		} else {
			c.fail(AxisChain, ReasonChainMismatch, "link "+l.prev+" is not the predecessor's hash "+c.v.predecessor.hash)
		}
	default:
		c.skip(AxisChain, ReasonChainUnknown, "predecessor not given")
	}
	c.res.Fields.PreviousHash = l.prev
	c.res.link = l
}

// ChainLink returns what the receipt names as its predecessor (normalized
// hex), whether that is the genesis seed, and whether it carries a link
// at all.
func (r *Result) ChainLink() (prev string, genesis, present bool) {
	return r.link.prev, r.link.genesis, r.link.present
}
