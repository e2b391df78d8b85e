package verify

import "github.com/receiptverify/verify/verify/reason"

// Reason is a stable code for why an axis did not pass. It is the one type
// of every package's reasons (keys.Reason, sigalg.Reason and canon.Reason
// are the same), each value with one meaning. The set is closed; message
// text is not an API, reasons are.
type Reason = reason.Reason

// structure
const (
	ReasonMalformed     = reason.Malformed     // not JSON, or JSON the dialect refuses
	ReasonUnknownFormat = reason.UnknownFormat // JSON of no known receipt shape
	ReasonMissingField  = reason.MissingField  // a required member is absent
	ReasonBadField      = reason.BadField      // a member has the wrong type or form
	ReasonUnsupported   = reason.Unsupported   // a mode the format defines that this tool does not check
)

// keys and signatures
const (
	ReasonUnknownKey     = reason.UnknownKey     // no key in the directory matches
	ReasonMalformedKey   = reason.MalformedKey   // the key found cannot be used
	ReasonNoKeys         = reason.NoKeys         // no --keys given and the format needs them
	ReasonIssuerMismatch = reason.IssuerMismatch // receipt names another issuer than its key's
	ReasonKeyRevoked     = reason.KeyRevoked     // key status revoked, suspended, compromised, or past revoked_at
	// ReasonRevokedAfterIssue: the key was revoked after the issue time the
	// receipt claims. That time is the signer's own word, so key_status is
	// SKIPPED (INCOMPLETE), neither trusted nor failed.
	ReasonRevokedAfterIssue = reason.RevokedAfterIssue
	ReasonBadSignature      = reason.BadSignature    // the signature does not verify
	ReasonAlgMismatch       = reason.AlgMismatch     // the receipt claims another algorithm than its key's
	ReasonBadEncoding       = reason.BadEncoding     // signature bytes not in the format's encoding
	ReasonUnsupportedAlg    = reason.UnsupportedAlg  // an algorithm this tool does not implement
	ReasonParentSignature   = reason.ParentSignature // a co-signature the format requires is missing or bad
)

// chains and streams
const (
	ReasonChainMismatch = reason.ChainMismatch // the link is not the hash of the given predecessor
	ReasonChainBreak    = reason.ChainBreak    // the link names a receipt of another chain
	ReasonChainAbsent   = reason.ChainAbsent   // the link names a receipt that is not in the input
	ReasonChainFork     = reason.ChainFork     // two receipts name the same predecessor
	ReasonChainUnknown  = reason.ChainUnknown
	ReasonNonceReplay   = reason.NonceReplay // the same (issuer, nonce) seen before in this run
)

// recomputed values and times
const (
	ReasonDigestMismatch      = reason.DigestMismatch
	ReasonActionRefMismatch   = reason.ActionRefMismatch
	ReasonFingerprintMismatch = reason.FingerprintMismatch // Overturn fingerprint or UndoLog call signature
	ReasonToolDrift           = reason.ToolDrift           // known tool name, unknown fingerprint
	ReasonToolUnknown         = reason.ToolUnknown         // tool name in no expected schema
	ReasonToolAbsent          = reason.ToolAbsent
	ReasonExpired             = reason.Expired
	ReasonClockSkew           = reason.ClockSkew // issued after --at
	ReasonBadAnchor           = reason.BadAnchor
	ReasonBadInclusionProof   = reason.BadInclusionProof   // an RFC 9162 inclusion proof that fails, or whose log signed another root
	ReasonBadConsistencyProof = reason.BadConsistencyProof // an RFC 9162 consistency proof that fails
	ReasonUncheckable         = reason.Uncheckable         // the check applies but the input lacks what it needs
)

// co-signatures beyond the issuer's
const (
	ReasonPDPSignature = reason.PDPSignature // a policy decision point's signature over the verdict is missing or bad (AERF)
)
