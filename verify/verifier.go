package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/receiptverify/verify/internal/helpers/bufpool"
	"github.com/receiptverify/verify/internal/limits"
	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
	"github.com/receiptverify/verify/verify/tlog"
	"github.com/receiptverify/verify/verify/toolschema"
)

// Verifier checks receipts against fixed trust material: a key directory,
// optionally the expected tool schemas and a predecessor, and the instant
// to judge times against. It is safe for concurrent use.
type Verifier struct {
	keys          *keys.Directory
	schemas       *toolschema.Set
	strictSchemas bool
	at            time.Time
	maxSkew       time.Duration
	predecessor   *chainRef
	logs          *tlog.Checkpoints // WithLogCheckpoints
}

// Option configures a Verifier. New returns the first error of its
// options, an *OptionError.
type Option func(*Verifier) error

// OptionError is an option New refused: which one, and why.
type OptionError struct {
	Option string // "WithMaxSkew", "WithPredecessor"
	Err    error  // of WithPredecessor, the predecessor's: a *canon.Error when it is no JSON
}

func (e *OptionError) Error() string { return "verify: " + e.Option + ": " + e.Err.Error() }

func (e *OptionError) Unwrap() error { return e.Err }

// WithTime sets the instant expiry and clock skew are judged against. Without
// it the skew axis is not run and expiry is judged against nothing (not run).
func WithTime(at time.Time) Option {
	return func(v *Verifier) error { v.at = at; return nil }
}

// WithMaxSkew sets how far in the future of the judging instant a receipt
// may claim to have been issued before the skew axis fails (default 5m).
func WithMaxSkew(d time.Duration) Option {
	return func(v *Verifier) error {
		if d < 0 {
			return &OptionError{Option: "WithMaxSkew", Err: errors.New("the skew must not be negative")}
		}
		v.maxSkew = d
		return nil
	}
}

// WithSchemas gives the expected tool schemas; without it the
// tool_fingerprint axis is not run.
func WithSchemas(s *toolschema.Set) Option {
	return func(v *Verifier) error { v.schemas = s; return nil }
}

// WithStrictSchemas makes a tool drift or unknown tool fail the receipt
// instead of being a finding on its own axis.
func WithStrictSchemas() Option {
	return func(v *Verifier) error { v.strictSchemas = true; return nil }
}

// WithPredecessor gives the receipt that every verified receipt is expected
// to link to (the single-receipt form of the chain check).
func WithPredecessor(raw []byte) Option {
	return func(v *Verifier) error {
		ref, err := chainRefOf(raw)
		if err != nil {
			return &OptionError{Option: "WithPredecessor", Err: err}
		}
		v.predecessor = ref
		return nil
	}
}

// New returns a Verifier that resolves keys in dir (which may be nil: then
// only formats that embed their key can pass).
func New(dir *keys.Directory, opts ...Option) (*Verifier, error) {
	if dir == nil {
		dir, _ = keys.NewDirectory()
	}
	v := &Verifier{keys: dir, maxSkew: 5 * time.Minute}
	for _, o := range opts {
		if err := o(v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// receiptParse is how every receipt is read: strict, since a receipt with a
// duplicate member name means different things to different parsers.
var receiptParse = canon.ParseOptions{MaxDepth: limits.MaxDepth, Duplicates: canon.RejectDuplicates, AllowLoneSurrogates: true}

// parseReceipt parses a receipt without copying it: the Value's strings
// point into raw (see VerifyWith, which gives the Result copies of its own).
func parseReceipt(raw []byte) (canon.Value, error) { return canon.ParseBorrowed(raw, receiptParse) }

// VerifyOptions are what a caller of VerifyWith may leave out of a Result.
type VerifyOptions struct {
	// DropSignature leaves Fields.Signature, the signature as carried,
	// empty (its SHA-256 is kept unless OmitSignatureHash): an ML-DSA
	// signature is kilobytes that a caller writing results out does not
	// need.
	DropSignature bool
	// OmitSignatureHash leaves Fields.SignatureSHA256 empty: only the JSON
	// output carries it, and hashing the 4.4 KB text of an ML-DSA-65
	// signature is about a twentieth of verifying a stream of them.
	OmitSignatureHash bool
	// KeepSigned keeps in Result.Signed a copy of the bytes the signature
	// was checked over, for a caller that shows them (verify explain).
	KeepSigned bool
}

// Verify checks one receipt given as its exact bytes. It returns an error
// only when raw is neither a JSON document this tool reads nor a compact
// JWS (which is read as its flattened JSON serialization), and that error is
// always a *canon.Error whose Reason says why (syntax, invalid_utf8,
// duplicate_member, too_deep, too_large, trailing_data, ...); the Result
// then has the verdict UNREADABLE and the reason malformed. Every other
// problem is a verdict, with its reasons on the Result's axes.
func (v *Verifier) Verify(raw []byte) (*Result, error) { return v.VerifyWith(raw, VerifyOptions{}) }

// VerifyWith is Verify with options. The Result never refers to raw's
// memory, so the caller may reuse raw as soon as it returns.
func (v *Verifier) VerifyWith(raw []byte, o VerifyOptions) (*Result, error) {
	res, err := v.verify(raw, o.KeepSigned)
	if sig := res.Fields.Signature; sig != "" && !o.OmitSignatureHash {
		// Hashed in place, before detach, which would copy the kilobytes.
		// Sum256 only reads its argument.
		sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(sig), len(sig)))
		res.Fields.SignatureSHA256 = hex.EncodeToString(sum[:])
	}
	if o.DropSignature {
		res.Fields.Signature = ""
	}
	// The receipt was parsed without a copy: every string of the Result
	// that still points into raw gets its own, a few hundred bytes against
	// a copy of the whole line.
	res.detach(raw)
	return res, err
}

func (v *Verifier) verify(raw []byte, keepSigned bool) (*Result, error) {
	res := &Result{Version: ResultVersion, Reasons: []Reason{}}
	doc, err := readDocument(raw, parseReceipt)
	if err != nil {
		res.Verdict = Unreadable
		res.Format = "unknown"
		res.Reasons = append(res.Reasons, ReasonMalformed) // as for a line too long to read
		res.Error = err.Error()
		return res, err
	}
	c := &check{v: v, raw: raw, doc: &doc, res: res, canonBuf: scratchBufs.Get(), sigBuf: scratchBufs.Get(), keepSigned: keepSigned}
	defer c.releaseBuffers()
	f := detect(&doc)
	if f == nil {
		res.Format = UnknownFormat
		// Not checked, which is not failed: a producer this tool has not
		// met is no forgery, so the receipt is INCOMPLETE, counted apart.
		c.skip(AxisStructure, ReasonUnknownFormat, "not a receipt of any known format: "+describeShape(&doc))
		res.fold()
		return res, nil
	}
	res.Format = f.name
	c.f = f
	f.check(c)
	resultText(res)
	if f.chain != nil {
		c.link.scope = chainScope(f, &doc)
	}
	c.finish()
	c.noteCoverage()
	if f.chain != nil {
		res.link.Scope = c.link.scope
		if res.Fingerprints.ChainHash == "" {
			// A check that stopped early still names the receipt's place
			// in its chain, so that its successors' links resolve.
			if h, err := f.chain.hash(&doc); err == nil {
				res.Fingerprints.ChainHash = h
			}
		}
	}
	res.fold()
	return res, nil
}

// UnknownFormat is Result.Format of a document no format's detector
// claims (and of an unreadable line).
const UnknownFormat = "unknown"

// IsUnknownFormat reports whether r is a document of no format this
// package reads: INCOMPLETE with reason unknown_format, its note naming
// the document's top-level member names. Summaries count such receipts
// apart from the failed and the otherwise incomplete.
func IsUnknownFormat(r *Result) bool {
	return r.Verdict == Incomplete && r.Format == UnknownFormat && r.Axes.Of(AxisStructure).Reason == ReasonUnknownFormat
}

// describeShape lists an object's member names, for the unknown-format note.
func describeShape(doc *canon.Value) string {
	if doc.Kind != canon.Object {
		return "a JSON " + doc.Kind.String()
	}
	names := make([]string, 0, len(doc.Members))
	for _, m := range doc.Members {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	if len(names) > 12 {
		names = append(names[:12], "...")
	}
	return "an object with members " + strings.Join(names, ", ")
}

// check is the state of verifying one receipt.
type check struct {
	f    *format
	v    *Verifier
	raw  []byte
	doc  *canon.Value
	res  *Result
	link chainLink
	// unlinked says why a receipt names no predecessor, for the chain
	// axis's note, when its format's rule has one to say (linkUnnamed).
	unlinked string
	// canonBuf and sigBuf are where the canonical payload and the decoded
	// signature are written: bytes Verify drops before it returns, so
	// nothing a Result keeps may point into them. Once payloadIn is set,
	// canonBuf is an Asqav payload's canonical form in that dialect, as
	// signed, which the anchors note's envelope digest reuses.
	canonBuf, sigBuf []byte
	// linkRoot, when set, is where the chain rule's link path starts
	// instead of the document: a JWS's decoded claims.
	linkRoot *canon.Value
	// alsoSigned names members the signature turned out to cover beyond
	// the format's signs list (a producer release that signed more).
	alsoSigned []string
	payloadIn  canon.Dialect
	keepSigned bool // VerifyOptions.KeepSigned
}

// signed records msg, the bytes a signature is checked over, when the
// caller asked for them.
func (c *check) signed(msg []byte) {
	if c.keepSigned {
		c.res.Signed = append([]byte(nil), msg...)
	}
}

// scratchBufs recycles checks' buffers: they are kilobytes per ML-DSA
// receipt, and allocating them for every receipt of a stream showed as
// garbage-collection work in its profile.
var scratchBufs bufpool.Pool

func (c *check) releaseBuffers() {
	scratchBufs.Put(c.canonBuf)
	scratchBufs.Put(c.sigBuf)
}

func (c *check) pass(a AxisName, note string) { c.res.set(a, StatusPass, "", note) }
func (c *check) fail(a AxisName, r Reason, note string) {
	c.res.set(a, StatusFail, r, note)
}
func (c *check) skip(a AxisName, r Reason, note string) { c.res.set(a, StatusSkipped, r, note) }
func (c *check) notRun(a AxisName, note string)         { c.res.set(a, StatusNotRun, "", note) }

// has reports whether an axis has an outcome yet.
func (c *check) has(a AxisName) bool { _, ok := c.res.Axes.Get(a); return ok }

// finish runs the checks common to every format that carries the fields,
// and marks what no check reached.
func (c *check) finish() {
	c.checkTimes()
	c.checkTool()
	c.checkChain()
	if !c.has(AxisStructure) {
		c.pass(AxisStructure, "")
	}
	// Fail safe: a format path that never reached its signature check must
	// not let the receipt pass.
	if !c.has(AxisSignature) {
		c.skip(AxisSignature, ReasonUncheckable, "no signature check was made")
	}
	if !c.has(AxisNonce) {
		if c.res.Fields.Nonce != "" {
			c.notRun(AxisNonce, "duplicates are found across a stream")
		} else {
			c.notRun(AxisNonce, "no nonce")
		}
	}
}

// verifySignature checks sig over msg with key, after checking that the
// algorithm the receipt claims (claimed, as written; empty when the format
// does not say) is the key's own. A receipt cannot choose the algorithm: a
// mismatch fails even when the signature would verify under the key's.
func (c *check) verifySignature(key *keys.Key, claimed string, msg, sig []byte) {
	c.signed(msg)
	c.res.Fields.Alg = string(key.Alg)
	if key.Public == nil {
		c.fail(AxisSignature, ReasonMalformedKey, "the directory's entry for this key is unusable: "+key.Err.Error())
		return
	}
	if claimed != "" {
		alg, err := sigalg.ParseAlg(claimed)
		if err != nil {
			c.fail(AxisSignature, ReasonUnsupportedAlg, fmt.Sprintf("receipt names algorithm %q", claimed))
			return
		}
		if alg != key.Alg {
			c.fail(AxisSignature, ReasonAlgMismatch, fmt.Sprintf("receipt claims %s, key %s is %s", alg, key.KID, key.Alg))
			return
		}
	}
	if err := key.Verify(msg, sig); err != nil {
		c.fail(AxisSignature, ReasonBadSignature, err.Error())
		return
	}
	c.pass(AxisSignature, string(key.Alg))
}

// keyStatus checks the key's lifecycle state at the receipt's issue time
// (Fields.IssuedAt; the judging instant stands in when it has none). The
// rule is keys.Key.CheckStatus: a key revoked after the time the receipt
// claims leaves the axis SKIPPED, not FAILED, as in the Asqav reference,
// so that rotating a key does not fail an archive's past receipts.
func (c *check) keyStatus(key *keys.Key) {
	err := key.CheckStatus(timeOf(c.res.Fields.IssuedAt), c.v.at)
	switch {
	case err == nil:
		c.pass(AxisKeyStatus, string(key.Status))
	case errors.Is(err, keys.ErrRevokedAfterIssue):
		c.skip(AxisKeyStatus, ReasonRevokedAfterIssue, err.Error())
	default:
		c.fail(AxisKeyStatus, ReasonKeyRevoked, err.Error())
	}
}

// resolveFailed records why no key could be found.
func (c *check) resolveFailed(err error) {
	var ke *keys.Error
	switch {
	case c.v.keys.Len() == 0:
		c.skip(AxisIssuerKey, ReasonNoKeys, "no key directory given (--keys)")
	case errors.As(err, &ke) && ke.Reason == keys.ReasonMalformedKey:
		c.fail(AxisIssuerKey, ReasonMalformedKey, err.Error())
	default:
		// Like the reference verifiers: a key the directory does not hold
		// is a check that could not be made, not proof of forgery.
		c.skip(AxisIssuerKey, ReasonUnknownKey, err.Error())
	}
	c.skip(AxisSignature, ReasonUncheckable, "no key")
	c.skip(AxisKeyStatus, ReasonUncheckable, "no key")
}
