// Package hook carries what package verify gives package stream alone: a
// result's spool codec, its entry in the chain and nonce index, the fold
// of the verdict after a stream's judgments, and verification whose result
// borrows the input's bytes. They are performance plumbing with no promise
// to library users, so they sit here, importable only under verify/, and
// not on verify's public API.
//
// Package verify registers them at init; the type parameters are its
// Verifier, Result, AxisName and Axis, which this package cannot name
// without importing it.
package hook

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

// Stream is the set of hooks package verify registers for package stream.
type Stream[V, R, N, A any] struct {
	// VerifyBorrowed is Verifier.VerifyWith with DropSignature and
	// OmitSignatureHash as given, except that the Result's strings point
	// into raw instead of being copied: it is valid only until raw is
	// written again.
	VerifyBorrowed func(v *V, raw []byte, dropSignature, omitSignatureHash bool) *R
	// AppendBinary appends a compact binary form of the result to b, for a
	// stream that verifies each receipt once and judges its chain and
	// nonce later. Everything is kept, unexported state included, so
	// UnmarshalBinary gives back a result that judges and renders the
	// same. The form is private to one run: no version, no promise across
	// releases.
	AppendBinary func(r *R, b []byte) []byte
	// UnmarshalBinary reads what AppendBinary wrote into a zero result.
	// Strings share one copy of data.
	UnmarshalBinary func(r *R, data []byte) error
	// IndexEntry returns the receipt's entry for a stream's chain and
	// nonce index, from its verification.
	IndexEntry func(r *R) IndexEntry
	// SetAxis records an axis outcome (a FAIL already recorded stays) and
	// folds the verdict again: how a stream records its chain and nonce
	// judgments.
	SetAxis func(r *R, name N, ax A)
	// ChainScopeWhat names what the chains of a format are scoped by, for
	// notes: "issuer", "plan_id"; "format" when by the format alone.
	ChainScopeWhat func(formatName string) string
}

var registered any

// Register is called by package verify's init.
func Register[V, R, N, A any](s Stream[V, R, N, A]) { registered = s }

// Get returns what package verify registered; it panics if the type
// parameters are not the ones verify registered with.
func Get[V, R, N, A any]() Stream[V, R, N, A] { return registered.(Stream[V, R, N, A]) }
