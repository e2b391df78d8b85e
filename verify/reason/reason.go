// Package reason is the one vocabulary of why a check or an input failed,
// shared by verify and its packages (canon, sigalg, keys): each declares
// its Reason as this type and names the values it reports, so a reason
// reads the same whichever package gave it. The set is closed; message
// text is not an API, reasons are.
package reason

import "strings"

// Reason is a stable, machine-readable cause.
type Reason string

// Documents (canon): why a dialect refuses a document.
const (
	Syntax          Reason = "syntax"           // not JSON
	InvalidUTF8     Reason = "invalid_utf8"     // bytes that are not UTF-8
	LoneSurrogate   Reason = "lone_surrogate"   // \ud800 without its pair
	DuplicateMember Reason = "duplicate_member" // one object, one name twice
	TooDeep         Reason = "too_deep"         // nesting over the dialect's limit
	TooLarge        Reason = "too_large"        // document over limits.MaxDocumentBytes
	UnsafeInteger   Reason = "unsafe_integer"   // integer literal beyond 2^53
	NonFinite       Reason = "non_finite"       // number that overflows a double
	TrailingData    Reason = "trailing_data"    // bytes after the document
	// Unsupported: a value the dialect cannot express, or a mode a receipt
	// format defines that this tool does not check.
	Unsupported Reason = "unsupported"
)

// Receipt structure (verify).
const (
	Malformed     Reason = "malformed"      // not JSON, or JSON the dialect refuses
	UnknownFormat Reason = "unknown_format" // JSON of no known receipt shape
	MissingField  Reason = "missing_field"  // a required member is absent
	BadField      Reason = "bad_field"      // a member has the wrong type or form
)

// Keys, key files and signatures (verify, keys, sigalg).
const (
	UnknownKey       Reason = "unknown_key"        // no key in the directory matches the ids on the wire
	MalformedKey     Reason = "malformed_key"      // the key found, or an entry or key value, cannot be used
	MalformedKeyFile Reason = "malformed_key_file" // a key file as a whole cannot be read
	// NoKeys: no usable key: none given where the format needs them, or a
	// key file that yields none.
	NoKeys         Reason = "no_keys"
	KeyConflict    Reason = "key_conflict"     // key file entries give one key id different keys or ids
	KeyUseExcluded Reason = "key_use_excluded" // a JWK whose use or key_ops excludes verifying
	Limit          Reason = "limit_exceeded"   // a limit of internal/limits or keys was hit
	IssuerMismatch Reason = "issuer_mismatch"  // receipt names another issuer than its key's
	KeyRevoked     Reason = "key_revoked"      // key status revoked, suspended, compromised, or past revoked_at
	// RevokedAfterIssue: the key was revoked after the issue time the
	// receipt claims. That time is the signer's own word, so the key's
	// status is neither trusted nor failed.
	RevokedAfterIssue  Reason = "revoked_after_issue"
	BadSignature       Reason = "bad_signature"       // the signature does not verify
	AlgMismatch        Reason = "alg_mismatch"        // the receipt claims another algorithm than its key's
	BadEncoding        Reason = "bad_encoding"        // signature bytes not in the format's encoding
	MalformedSignature Reason = "malformed_signature" // a signature of the wrong size or form for its algorithm
	MalformedEncoding  Reason = "malformed_encoding"  // base64, hex or base58 text that does not decode
	UnsupportedAlg     Reason = "unsupported_alg"     // an algorithm this tool does not implement
	ParentSignature    Reason = "parent_signature"    // a co-signature the format requires is missing or bad
	PDPSignature       Reason = "pdp_signature"       // a policy decision point's signature over the verdict is missing or bad (AERF)
)

// Chains and streams (verify, verify/stream).
const (
	ChainMismatch Reason = "chain_mismatch" // the link is not the hash of the given predecessor
	ChainBreak    Reason = "chain_break"    // the link names a receipt of another chain
	ChainAbsent   Reason = "chain_absent"   // the link names a receipt that is not in the input
	ChainFork     Reason = "chain_fork"     // two receipts name the same predecessor
	ChainUnknown  Reason = "chain_unresolved"
	NonceReplay   Reason = "nonce_replay" // the same (issuer, nonce) seen before in this run
)

// Recomputed values and times (verify).
const (
	DigestMismatch      Reason = "payload_digest_mismatch"
	ActionRefMismatch   Reason = "action_ref_mismatch"
	FingerprintMismatch Reason = "fingerprint_mismatch" // Overturn fingerprint or UndoLog call signature
	ToolDrift           Reason = "tool_drift"           // known tool name, unknown fingerprint
	ToolUnknown         Reason = "tool_unknown"         // tool name in no expected schema
	ToolAbsent          Reason = "tool_fingerprint_absent"
	Expired             Reason = "expired"
	ClockSkew           Reason = "clock_skew" // issued after --at
	BadAnchor           Reason = "bad_anchor"
	BadInclusionProof   Reason = "bad_inclusion_proof"   // a transparency log's inclusion proof does not lead to the root its log signed
	BadConsistencyProof Reason = "bad_consistency_proof" // a transparency log's consistency proof does not lead from its old tree head to its checkpoint's
	Uncheckable         Reason = "uncheckable"           // the check applies but the input lacks what it needs
)

// All is every reason, in the order above.
func All() []Reason {
	return []Reason{
		Syntax, InvalidUTF8, LoneSurrogate, DuplicateMember, TooDeep, TooLarge, UnsafeInteger, NonFinite, TrailingData, Unsupported,
		Malformed, UnknownFormat, MissingField, BadField,
		UnknownKey, MalformedKey, MalformedKeyFile, NoKeys, KeyConflict, KeyUseExcluded, Limit, IssuerMismatch, KeyRevoked,
		RevokedAfterIssue, BadSignature, AlgMismatch, BadEncoding, MalformedSignature, MalformedEncoding, UnsupportedAlg,
		ParentSignature, PDPSignature,
		ChainMismatch, ChainBreak, ChainAbsent, ChainFork, ChainUnknown, NonceReplay,
		DigestMismatch, ActionRefMismatch, FingerprintMismatch, ToolDrift, ToolUnknown, ToolAbsent, Expired, ClockSkew,
		BadAnchor, BadInclusionProof, BadConsistencyProof, Uncheckable,
	}
}

// Join writes reasons as one text, comma-separated: a reasons column of
// CSV and SQL rows.
func Join(reasons []Reason) string {
	var b strings.Builder
	for i, r := range reasons {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(string(r))
	}
	return b.String()
}
