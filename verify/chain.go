package verify

import (
	"errors"
	"strings"

	"github.com/receiptverify/verify/internal/engine/chainscope"
	"github.com/receiptverify/verify/verify/canon"
)

// The chain rule, the one place it is written: a receipt's link is
// satisfied by a predecessor when the link is the predecessor's chain hash
// and both receipts are of one chain, which is to say of one format and one
// chain scope. Each format says how it hashes a receipt, where it names the
// predecessor (a linkRule) and what its scope is; a single receipt checked
// against WithPredecessor and the stream's index over a whole input apply
// the same rule to the same three things.

// genesisHash is the link of the first receipt of an Asqav chain.
const genesisHash = "0000000000000000000000000000000000000000000000000000000000000000"

// chainRule is how the receipts of a format chain.
type chainRule struct {
	// hash is what a successor names as this receipt's predecessor, in
	// the normalized form of chainLink.prev.
	hash func(doc *canon.Value) (string, error)
	// link is where a receipt names its predecessor.
	link linkRule
	// scope returns the chain scope of a receipt: scopeKey of the format's
	// name and the members that name the chain it belongs to; nil when a
	// chain is scoped by the format alone. chainscope.What names the
	// members for notes ("issuer").
	scope func(name string, doc *canon.Value) string
}

// linkRule is where and how a format writes the link to the predecessor.
type linkRule struct {
	path []string // members from the document down to the link
	// absent and null are what a missing member and a JSON null mean.
	absent, null linkMeaning
	// genesis lists values that mark the first receipt of a chain.
	genesis []string
	// seedIsLink: a genesis value is still reported as the link named
	// (Asqav's all-zero seed is a hash; pipelock's "genesis" is not).
	seedIsLink bool
	// prefix, when set, must start the value ("sha256:").
	prefix string
	// keepBad: a malformed value still names a predecessor (which then
	// cannot be found), rather than no link at all.
	keepBad bool
	// hashOrNone: a string that is not a SHA-256 in hex ("", 63 zeros)
	// names no predecessor, as null does: the chain is not checked (the
	// Asqav SDK skips the chain of such a link when no predecessor is
	// given, and no receipt can have it as its hash).
	hashOrNone bool
}

// where names the link's member for notes ("payload.previousReceiptHash").
func (r *linkRule) where() string { return strings.Join(r.path, ".") }

type linkMeaning uint8

const (
	linkNone    linkMeaning = iota // no link: the chain axis is not run
	linkGenesis                    // the first receipt of a chain
	linkMissing                    // malformed: the member is required
	linkBad                        // malformed: the value is not allowed
	linkUnnamed                    // no predecessor named: the chain axis is not run, and the note says why
)

// chainLink is what a receipt says about its predecessor and its chain.
// prev is normalized: lowercase hex, no "sha256:" prefix.
type chainLink struct {
	present bool // the format chains and the receipt carries a link (or an explicit genesis)
	genesis bool
	prev    string
	scope   string // format and chain scope: see chainScope
}

// chainRef is a predecessor given to the verifier.
type chainRef struct {
	hash  string
	scope string
}

func chainRefOf(raw []byte) (*chainRef, error) {
	doc, err := readDocument(raw, parseCopy)
	if err != nil {
		return nil, err
	}
	f := detect(&doc)
	if f == nil {
		return nil, errors.New("not a receipt of any known format")
	}
	if f.chain == nil {
		return nil, errors.New(f.name + " receipts do not chain")
	}
	h, err := f.chain.hash(&doc)
	if err != nil {
		return nil, err
	}
	return &chainRef{hash: h, scope: chainScope(f, &doc)}, nil
}

// ChainScope returns the chain scope of a receipt given as its bytes, as
// Result.ScopeKey has it: for an archive that stores receipts and must
// say which chain one it holds belongs to.
func ChainScope(raw []byte) (string, error) {
	doc, err := readDocument(raw, parseCopy)
	if err != nil {
		return "", err
	}
	f := detect(&doc)
	if f == nil {
		return "", errors.New("not a receipt of any known format")
	}
	return chainScope(f, &doc), nil
}

// parseCopy parses a receipt into strings of its own.
func parseCopy(raw []byte) (canon.Value, error) { return canon.Parse(raw, receiptParse) }

// chainScope is the format's name and the members its rule scopes a chain
// by (scopeKey).
func chainScope(f *format, doc *canon.Value) string {
	if f.chain == nil || f.chain.scope == nil {
		return f.name
	}
	return f.chain.scope(f.name, doc)
}

// scopeKey joins a format's name and its scope members with NUL bytes,
// which a member (a JSON string read as UTF-8) cannot hold unescaped, so
// that no two scopes run together: one allocation per receipt.
func scopeKey(name string, parts ...string) string {
	n := len(name) + len(parts)
	for _, p := range parts {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(name)
	for _, p := range parts {
		b.WriteByte(0)
		b.WriteString(p)
	}
	return b.String()
}

// chainScopeWhat names what the chains of a format are scoped by, for
// notes (chainscope.What).
func chainScopeWhat(formatName string) string { return chainscope.What(formatName) }

// isHexHash reports whether s is 64 hex digits, of either case.
func isHexHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		default:
			return false
		}
	}
	return true
}

// normalizeHash lowercases a hex digest and drops a "sha256:" prefix.
func normalizeHash(s string) string {
	return strings.ToLower(strings.TrimPrefix(s, "sha256:"))
}

// readLink reads the receipt's link by its format's rule, failing the
// structure axis when the rule says it is malformed.
func (c *check) readLink() {
	rule := &c.f.chain.link
	v := c.doc
	if c.linkRoot != nil {
		v = c.linkRoot
	}
	for _, name := range rule.path {
		v = v.Get(name)
	}
	meaning := linkNone
	switch {
	case v == nil:
		meaning = rule.absent
	case v.Kind == canon.Null:
		meaning = rule.null
	case v.Kind != canon.String:
		c.fail(AxisStructure, ReasonBadField, rule.where()+" must be a string")
		if rule.keepBad {
			c.link = chainLink{present: true, prev: jsonText(v)}
		}
		return
	default:
		for _, g := range rule.genesis {
			if v.Text == g {
				c.link = chainLink{present: true, genesis: true}
				if rule.seedIsLink {
					c.link.prev = normalizeHash(v.Text)
				}
				return
			}
		}
		if rule.prefix != "" && !strings.HasPrefix(v.Text, rule.prefix) {
			c.fail(AxisStructure, ReasonBadField, rule.where()+" must be "+quoteShort(rule.prefix)+" + hex")
			if rule.keepBad {
				c.link = chainLink{present: true, prev: v.Text}
			}
			return
		}
		if rule.hashOrNone && !isHexHash(v.Text) {
			c.unlinked = rule.where() + " " + quoteShort(v.Text) + " is not a SHA-256 in hex: no predecessor named, the chain is not checked"
			return
		}
		c.link = chainLink{present: true, prev: normalizeHash(v.Text)}
		return
	}
	switch meaning {
	case linkGenesis:
		c.link = chainLink{present: true, genesis: true}
	case linkUnnamed:
		c.unlinked = rule.where() + " is null: no predecessor named, the chain is not checked"
	case linkMissing:
		c.fail(AxisStructure, ReasonMissingField, rule.where()+" is missing: the first receipt of a chain has it null, never omitted")
	case linkBad:
		if v == nil {
			c.fail(AxisStructure, ReasonMissingField, rule.where()+" is missing")
		} else {
			c.fail(AxisStructure, ReasonBadField, rule.where()+" is null, which the format does not allow (a first receipt omits it)")
		}
	}
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
	case !l.present && c.unlinked != "":
		c.notRun(AxisChain, c.unlinked)
	case !l.present:
		c.notRun(AxisChain, "no chain link")
	case l.genesis:
		c.pass(AxisChain, "genesis")
	case c.v.predecessor != nil:
		switch p := c.v.predecessor; {
		case l.prev != p.hash:
			c.fail(AxisChain, ReasonChainMismatch, "link "+l.prev+" is not the predecessor's hash "+p.hash)
		case l.scope != p.scope:
			c.fail(AxisChain, ReasonChainBreak, "the predecessor belongs to another chain (its "+chainScopeWhat(c.res.Format)+" differs)")
		default:
			c.pass(AxisChain, "links to the given predecessor")
		}
	default:
		c.skip(AxisChain, ReasonChainUnknown, "predecessor not given")
	}
	c.res.Fields.PreviousHash = l.prev
	c.res.link = resultLink{Present: l.present, Genesis: l.genesis, Prev: l.prev, Scope: l.scope}
}
