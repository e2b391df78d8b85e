package verify

import (
	"errors"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// An AERF notarised-evidence receipt is a flat object signed with Ed25519
// over the canonical bytes of the receipt minus aerfUnsigned, signed
// directly; the signature is hex, the key found by key_id in a key map.
// The canonical form is the producer's, Python's json.dumps(sort_keys=True)
// (canon.AsqavCodePoint(); 500.0 stays 500.0), which the reference verifier
// (verifiers/go) reproduces. Neither normalizes Unicode: the spec asks
// producers for NFC text, and the verifier checks the bytes as given.
// agentmint-python, the library AERF names as its reference producer,
// writes floats holding integers as integers (canon.AgentMint); its
// receipts are checked in that form when the first fails.
//
// Chain: previous_receipt_hash is the hex SHA-256 of the predecessor's
// signable bytes, so its signature is excluded. A genesis receipt omits the
// member; null is malformed. A chain is one plan's: "receipts within a
// single plan form a Merkle structure" (SPEC.md §8); key_id is no scope,
// since §8.4 lets a rotated key re-sign a chain.
//
// Co-signatures, reported on the signature axis: when impact_tags is
// non-empty, a parent counter-signature (parent_key_id over the same bytes
// as the issuer) and a PDP signature (pdp_key_id over the canonical
// {context_hash_sha256, in_policy, policy_hash}) are required. Either one
// present is verified even when not required. A missing required one, or a
// bad one, fails; one whose key the directory lacks leaves the axis
// SKIPPED. Stripping impact_tags before signing removes the requirement:
// the receipt layer cannot see that (an upstream known limit), and such a
// receipt passes as the upstream verifier passes it.
//
// log_inclusion_proof, added after signing, is judged on the anchors axis
// against the log's checkpoints (aerfInclusion, WithLogCheckpoints).
var aerfFormat = format{name: "aerf", detect: isAERF, check: checkAERF, unsigned: []string{"timestamp", "parent_key_id", "log_inclusion_proof"}, chain: &chainRule{
	hash:  aerfChainHash,
	link:  linkRule{path: []string{"previous_receipt_hash"}, absent: linkNone, null: linkBad},
	scope: func(name string, doc *canon.Value) string { return scopeKey(name, str(doc, "plan_id")) },
}}

// aerfUnsigned are the members outside the signature (and the chain hash).
var aerfUnsigned = []string{"signature", "timestamp", "parent_signature", "parent_key_id", "log_inclusion_proof"}

var aerfRequired = []string{"id", "type", "plan_id", "agent", "action", "in_policy", "evidence_hash_sha512", "observed_at", "key_id", "signature"}

func isAERF(doc *canon.Value) bool {
	return str(doc, "type") == "notarised_evidence" && doc.Get("evidence_hash_sha512") != nil
}

// aerfSigningInput returns the signed value and its canonical bytes.
func aerfSigningInput(doc *canon.Value) (canon.Value, []byte, error) {
	s := withoutMembers(doc, aerfUnsigned...)
	b, err := canon.AsqavCodePoint().Append(nil, &s)
	return s, b, err
}

func aerfChainHash(doc *canon.Value) (string, error) {
	_, b, err := aerfSigningInput(doc)
	if err != nil {
		return "", err
	}
	return sha256Hex(b), nil
}

func checkAERF(c *check) {
	doc := c.doc
	f := &c.res.Fields
	f.ActionID = str(doc, "id")
	f.AgentID = str(doc, "agent")
	f.SessionID = str(doc, "session_id")
	f.IssuedAt = str(doc, "observed_at")
	f.ToolName = str(doc.Get("evidence"), "tool")
	if ip := doc.Get("in_policy"); ip != nil {
		switch ip.Kind {
		case canon.True:
			f.Decision = "allow"
		case canon.False:
			f.Decision = "deny"
		default:
			c.fail(AxisStructure, ReasonBadField, "in_policy must be a boolean")
		}
	}
	for _, name := range aerfRequired {
		if doc.Get(name) == nil {
			c.fail(AxisStructure, ReasonMissingField, name+" is missing")
		}
	}
	for _, name := range []string{"id", "plan_id", "agent", "action", "evidence_hash_sha512", "observed_at"} {
		if v := doc.Get(name); v != nil && v.Kind != canon.String {
			c.fail(AxisStructure, ReasonBadField, name+" must be a string, not "+v.Kind.String())
		}
	}
	c.readLink()
	c.notRun(AxisPayloadDigest, "evidence_hash_sha512 is not recomputed: the reference does not check it")

	signed, msg, err := aerfSigningInput(doc)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "receipt cannot be canonicalized: "+err.Error())
		return
	}
	c.res.Fingerprints.ChainHash = sha256Hex(msg)
	c.aerfIssuerSignature(&signed, msg)
	c.aerfCoSignatures(msg)
	c.aerfInclusion(msg)
}

func (c *check) aerfIssuerSignature(signed *canon.Value, msg []byte) {
	f := &c.res.Fields
	kid, okKid := c.requireStr(c.doc, "", "key_id")
	sigText, okSig := c.requireStr(c.doc, "", "signature")
	f.KeyID, f.Signature = kid, sigText
	if !okKid || !okSig {
		c.skip(AxisSignature, ReasonUncheckable, "no key_id or signature")
		return
	}
	key := c.keyByID(kid)
	if key == nil {
		return
	}
	c.notRun(AxisIssuerBind, "AERF names no issuer besides key_id")
	c.keyStatus(key)
	sig, err := sigalg.DecodeHex(sigText)
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "signature is not hex: "+err.Error())
		return
	}
	c.verifySignature(key, string(sigalg.Ed25519), msg, sig)
	if c.legacyFallback(aerfProducerForms, key, c.doc, signed, msg, sig) {
		return
	}
	c.hintNormalization(key, canon.AsqavCodePoint(), signed, sig)
}

// aerfAgentMintNote names the form a receipt was checked in when its
// bytes in AERF's own producer's form did not verify and agentmint's did.
const aerfAgentMintNote = "signed bytes in agentmint-python's form (dialect agentmint: a float holding an integer written as that integer, 500.0 as 500), not aerf_primitives' (500.0)"

// aerfProducerForms are the other producers' forms of the same bytes,
// tried when the aerf_primitives form fails: agentmint-python, AERF's
// reference producer library, which chains over the same bytes it signs
// (Receipt.canonical_hash).
var aerfProducerForms = []legacyForm{{
	note:      aerfAgentMintNote,
	bytes:     func(_, signed *canon.Value) ([]byte, error) { return canon.AgentMint().Append(nil, signed) },
	chainHash: func(*canon.Value) bool { return true },
}}

// aerfCoSignatures checks the parent counter-signature and the PDP binding.
func (c *check) aerfCoSignatures(msg []byte) {
	doc := c.doc
	required := false
	if tags := doc.Get("impact_tags"); tags != nil && tags.Kind != canon.Null {
		if tags.Kind != canon.Array {
			c.fail(AxisStructure, ReasonBadField, "impact_tags must be a list")
			return
		}
		required = len(tags.Items) > 0
	}
	c.aerfCoSignature("parent", "parent_signature", "parent_key_id", ReasonParentSignature, required, func() ([]byte, error) { return msg, nil })
	c.aerfCoSignature("PDP", "pdp_signature", "pdp_key_id", ReasonPDPSignature, required, func() ([]byte, error) {
		tuple := canon.Value{Kind: canon.Object}
		for _, name := range []string{"context_hash_sha256", "in_policy", "policy_hash"} {
			v := canon.Value{Kind: canon.Null}
			if m := doc.Get(name); m != nil {
				v = *m
			}
			tuple.Members = append(tuple.Members, canon.Member{Name: name, Value: v})
		}
		return canon.AsqavCodePoint().Append(nil, &tuple)
	})
}

// aerfCoSignature verifies one co-signature. A failure is recorded only if
// the signature axis has not failed already, so the first cause stays.
func (c *check) aerfCoSignature(who, sigName, kidName string, reason Reason, required bool, input func() ([]byte, error)) {
	if c.res.Axes.Of(AxisSignature).Status == StatusFail {
		return
	}
	sv := c.doc.Get(sigName)
	if sv == nil || sv.Kind == canon.Null || (sv.Kind == canon.String && sv.Text == "") {
		if required {
			c.fail(AxisSignature, reason, "impact_tags requires a "+who+" signature and "+sigName+" is absent")
		}
		return
	}
	if sv.Kind != canon.String {
		c.fail(AxisStructure, ReasonBadField, sigName+" must be a string")
		c.fail(AxisSignature, reason, sigName+" is not a string")
		return
	}
	kid := str(c.doc, kidName)
	key, err := c.v.keys.ByID(kid)
	if err != nil {
		c.skip(AxisSignature, ReasonUncheckable, who+" key "+quoteShort(kid)+" ("+kidName+") is not in the key directory")
		return
	}
	if key.Alg != sigalg.Ed25519 {
		c.fail(AxisSignature, reason, who+" key "+quoteShort(kid)+" is "+string(key.Alg)+", not Ed25519")
		return
	}
	switch err := key.CheckStatus(timeOf(c.res.Fields.IssuedAt), c.v.at); {
	case errors.Is(err, keys.ErrRevokedAfterIssue):
		c.skip(AxisKeyStatus, ReasonRevokedAfterIssue, who+" key: "+err.Error())
	case err != nil:
		c.fail(AxisSignature, reason, who+" key: "+err.Error())
		return
	}
	msg, err := input()
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, who+" signing input cannot be canonicalized: "+err.Error())
		return
	}
	c.signed(msg)
	sig, err := sigalg.DecodeHex(sv.Text)
	if err == nil {
		err = key.Verify(msg, sig)
	}
	if err != nil {
		c.fail(AxisSignature, reason, who+" signature by "+quoteShort(kid)+" does not verify: "+err.Error())
		return
	}
	c.noteSignature(who + " signature by " + kid + " valid")
}
