package verify

// Reason is a stable code for why an axis did not pass. The set is closed;
// message text is not an API, reasons are.
type Reason string

// structure
const (
	ReasonMalformed     Reason = "malformed"      // not JSON, or JSON the dialect refuses
	ReasonUnknownFormat Reason = "unknown_format" // JSON of no known receipt shape
	ReasonMissingField  Reason = "missing_field"  // a required member is absent
	ReasonBadField      Reason = "bad_field"      // a member has the wrong type or form
	ReasonUnsupported   Reason = "unsupported"    // a mode the format defines that this tool does not check
)

// keys and signatures
const (
	ReasonUnknownKey     Reason = "unknown_key"     // no key in the directory matches
	ReasonMalformedKey   Reason = "malformed_key"   // the key found cannot be used
	ReasonNoKeys         Reason = "no_keys"         // no --keys given and the format needs them
	ReasonIssuerMismatch Reason = "issuer_mismatch" // receipt names another issuer than its key's
	ReasonKeyRevoked     Reason = "key_revoked"     // key status revoked, suspended, compromised, or past revoked_at
	// ReasonRevokedAfterIssue: the key was revoked after the issue time the
	// receipt claims. That time is the signer's own word, so key_status is
	// SKIPPED (INCOMPLETE), neither trusted nor failed.
	ReasonRevokedAfterIssue Reason = "revoked_after_issue"
	ReasonBadSignature      Reason = "bad_signature"    // the signature does not verify
	ReasonAlgMismatch       Reason = "alg_mismatch"     // the receipt claims another algorithm than its key's
	ReasonBadEncoding       Reason = "bad_encoding"     // signature bytes not in the format's encoding
	ReasonUnsupportedAlg    Reason = "unsupported_alg"  // an algorithm this tool does not implement
	ReasonParentSignature   Reason = "parent_signature" // a co-signature the format requires is missing or bad
)

// chains and streams
const (
	ReasonChainMismatch Reason = "chain_mismatch" // the link is not the hash of the given predecessor
	ReasonChainBreak    Reason = "chain_break"    // the link names a receipt of another chain
	ReasonChainAbsent   Reason = "chain_absent"   // the link names a receipt that is not in the input
	ReasonChainFork     Reason = "chain_fork"     // two receipts name the same predecessor
	ReasonChainUnknown  Reason = "chain_unresolved"
	ReasonNonceReplay   Reason = "nonce_replay" // the same (issuer, nonce) seen before in this run
)

// recomputed values and times
const (
	ReasonDigestMismatch      Reason = "payload_digest_mismatch"
	ReasonActionRefMismatch   Reason = "action_ref_mismatch"
	ReasonFingerprintMismatch Reason = "fingerprint_mismatch" // Overturn fingerprint or UndoLog call signature
	ReasonToolDrift           Reason = "tool_drift"           // known tool name, unknown fingerprint
	ReasonToolUnknown         Reason = "tool_unknown"         // tool name in no expected schema
	ReasonToolAbsent          Reason = "tool_fingerprint_absent"
	ReasonExpired             Reason = "expired"
	ReasonClockSkew           Reason = "clock_skew" // issued after --at
	ReasonBadAnchor           Reason = "bad_anchor"
	ReasonUncheckable         Reason = "uncheckable" // the check applies but the input lacks what it needs
)

// co-signatures beyond the issuer's
const (
	ReasonPDPSignature Reason = "pdp_signature" // a policy decision point's signature over the verdict is missing or bad (AERF)
)
