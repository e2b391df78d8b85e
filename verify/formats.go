package verify

import "github.com/receiptverify/verify/verify/canon"

// format is one receipt format: how to recognise it, how to check it and,
// for a format whose receipts chain, its chain rule. Each format is one
// file declaring one format value; adding a format is that file, its line
// below and its vectors.
type format struct {
	name   string
	detect func(doc *canon.Value) bool
	check  func(c *check)
	chain  *chainRule // nil: receipts of the format do not chain
	// signs lists the top-level members the signature covers, its own
	// member included, for a format that signs only some of them; nil
	// when the signature covers the whole receipt. coverage.go reads it.
	signs []string
	// unsigned lists, for a format that signs every member but a few, the
	// members outside the signature that are not a signature themselves;
	// coverage.go reads it when signs is nil.
	unsigned []string
}

// formats lists every format in the order detect tries them. No two
// detectors claim one document (TestDetectorsDisjoint runs every detector
// on every vector of the project), so the order decides no outcome: it
// only puts first the formats whose detector is a member lookup or two,
// and the ones most archives hold.
//
//   - dsse: payloadType and signatures, and a string payload, which no
//     other format has;
//   - trustproof, jws: a string payload beside a protected header and a
//     signature, or a list of signatures, and no payloadType (a compact
//     JWS line is read as such); trustproof when the payload's claims
//     carry chain.entry_hash and jti;
//   - acta before asqav-native: both are {payload, signature: {sig}}, and
//     isAsqavPayload leaves out the ACTA shape (hex sig, no anchors)
//     rather than relying on coming second;
//   - asqav-native, asqav-hash: the Asqav envelope and the flat hash-mode
//     record (payload absent or null);
//   - the flat formats, each known by a member or a member value of its
//     own: aerf (type notarised_evidence), overturn-recording
//     (fingerprint, no payload), agentreceipts (type AgentReceipt),
//     undolog-effect (call_signature), authproof (delegationId),
//     pipelock-evidence-v2 (record_type), pipelock-action-v1
//     (action_record), webaes-action-receipt (an "ed25519:" signature
//     string beside receipt_id and input_hash), circe (an object
//     signed_block beside an embedded public_key), sb-runtime (a
//     payload of type scopeblind.receipt.v1 beside a pubkey), xaip (agentDid
//     beside taskHash, toolName and a string signature),
//     vaara-receipt-v1 (decisionDerived and issuerAsserted objects),
//     acta-artifact (a v of 1 or 2 and a top-level Ed25519 signature in
//     hex);
//   - w3c-data-integrity: a proof of type DataIntegrityProof, on any
//     document but an AgentReceipt;
//   - asqav-vc: a proof of type AsqavReceiptSignature2026 and a
//     credentialSubject, the Asqav SDK's VC door;
//   - scitt-statement: a transparent_statement string, a SCITT
//     transparent statement's COSE_Sign1 in base64url.
var formats = []format{
	dsseFormat,
	trustProofFormat,
	jwsFormat,
	actaFormat,
	asqavNativeFormat,
	asqavHashFormat,
	aerfFormat,
	overturnFormat,
	agentReceiptsFormat,
	undoLogFormat,
	authproofFormat,
	pipelockFormat,
	pipelockActionFormat,
	webaesFormat,
	circeFormat,
	sbRuntimeFormat,
	xaipFormat,
	vaaraFormat,
	actaArtifactFormat,
	dataIntegrityFormat,
	asqavVCFormat,
	checkpointFormat,
	obsignaCheckpointFormat,
	scittFormat,
	pipelockRecorderCheckpointFormat,
}

func detect(doc *canon.Value) *format {
	if doc.Kind != canon.Object {
		return nil
	}
	for i := range formats {
		if formats[i].detect(doc) {
			return &formats[i]
		}
	}
	return nil
}
