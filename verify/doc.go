// Package verify turns the bytes of a signed AI-agent tool-call receipt into
// a verdict. It knows nothing of files, flags or databases: it takes bytes
// and trust material, and returns a [Result].
//
// # Use
//
// A [Verifier] is trust material plus options, validated once:
//
//	v, err := verify.New(dir, verify.WithTime(at), verify.WithSchemas(set))
//	res, err := v.Verify(raw) // err only when raw is neither JSON nor a compact JWS
//
// dir is a [keys.Directory] (key snapshots), set the expected tool schemas
// ([toolschema.Set]); both are optional. Verify never reads a clock: the
// judging instant is given with [WithTime].
//
// # Formats
//
// The format is detected per document from its members, by detectors no
// two of which claim one document (formats.go lists them); a shape that
// matches none is reported as unknown_format, never guessed: Asqav payload mode (v1 and the v2 signer payload) and hash mode,
// DSSE attestations, ACTA (envelopes, and the v1 and v2 artifacts protect-mcp
// wrote before them), AERF, agentreceipts, authproof, pipelock evidence
// v2 and ActionReceipt v1, Overturn recording entries, UndoLog
// effect-log rows, webaes action receipts, circe receipts, sb-runtime receipts, JWS receipts
// (compact, flattened and general; TrustProof JWT chains), XAIP receipts,
// Vaara receipts and SCITT transparent statements (COSE_Sign1 with RFC 9942
// receipts, scitt.go). Each format's file says its exact signing input and
// chain rule. Signatures are always checked over bytes recomputed from the
// document as received, in the producer's own canonical dialect (package
// canon); for a pipelock ActionReceipt that is the document as Go's
// encoding/json reads it into the reference's structs and writes it again.
//
// # Axes and verdict
//
// Each receipt is judged on independent axes (see [AxisOrder]), each PASS,
// FAIL, SKIPPED (the check applies but could not be made) or NOT_RUN (not
// asked for, or nothing to check), with a stable [Reason]. The verdict:
// FAIL if any axis but the advisory ones (action_ref, expiry; and
// tool_fingerprint unless [WithStrictSchemas]) failed; else INCOMPLETE if
// any axis but chain was skipped; else PASS. A key the directory does not
// hold makes a receipt INCOMPLETE, not FAIL: the check could not be made.
// No receipt can choose its algorithm: a claimed algorithm other than the
// key's is FAIL (alg_mismatch) even when the signature would verify.
//
// # Chains
//
// A receipt's link is satisfied by a predecessor when it is the
// predecessor's chain hash and both are of one chain: one format and one
// chain scope, which each format takes from its producers (ACTA: the
// issuer; AERF: plan_id; agentreceipts: chain_id; Asqav: issuer, org, agent
// and session; pipelock: the format alone; a SCITT statement whose payload
// is a NOA receipt: its tenant and chain). [WithPredecessor] and package
// stream apply that one rule; [ChainScope] gives a stored receipt's scope.
//
// # Streams
//
// Chains and nonces are properties of a whole archive, not of one receipt:
// package stream judges them across an input. What it needs of a Result
// beyond this API (an index entry, a spool codec, recording its judgments)
// it reaches through an internal package, with no promise to other callers.
package verify
