package verify

import (
	"slices"
	"strings"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/sigalg"
)

// A pipelock EvidenceReceipt v2 (record_type evidence_receipt_v2) is signed
// with Ed25519 over the canonical bytes of the whole receipt with its
// signature object replaced by the zero value {signer_key_id: "",
// key_purpose: "", algorithm: "", signature: ""}, as the Go reference
// (internal/contract/receipt SignablePreimage) marshals it. The canonical
// form is the reference's own (canon.Pipelock()): every string and member
// name in NFC, names in code-point order, strings quoted by Go's
// encoding/json, so & < > and U+2028, U+2029 are escaped inside the signed
// bytes, integers only. Exactly those bytes are accepted; the note says so
// when the escapes were in play. signature.signature is "ed25519:" + hex; the key is found
// by signature.signer_key_id in a key map (v2 does not embed it). The key
// purpose must be the one the payload kind requires.
//
// Chain: chain_prev_hash is "sha256:" + hex SHA-256 of the canonical bytes
// (the signature's form) of the full predecessor, signature included; "sha256:0", "genesis" or an
// absent member mark the genesis receipt. A chain is scoped by the format
// alone: neither reference (the Go contract package, pipelock-verify-python
// _evidence.py) checks more than the hash, and one chain holds receipts
// signed by keys of different purposes.
var pipelockFormat = format{name: "pipelock-evidence-v2", detect: isPipelock, check: checkPipelock, chain: &chainRule{
	hash: pipelockChainHash,
	link: linkRule{path: []string{"chain_prev_hash"}, absent: linkGenesis, null: linkGenesis,
		genesis: []string{"sha256:0", "genesis"}, prefix: "sha256:", keepBad: true},
}}

const pipelockSigPrefix = "ed25519:"

// pipelockAuthority maps each payload kind to the key purpose that may sign
// it (pipelock internal/contract/verify.go payloadAuthority).
var pipelockAuthority = map[string]string{
	"proxy_decision":               "receipt-signing",
	"contract_ratified":            "receipt-signing",
	"contract_promote_intent":      "contract-activation-signing",
	"contract_promote_committed":   "receipt-signing",
	"contract_rollback_authorized": "contract-activation-signing",
	"contract_rollback_committed":  "receipt-signing",
	"contract_demoted":             "receipt-signing",
	"contract_expired":             "receipt-signing",
	"contract_drift":               "receipt-signing",
	"shadow_delta":                 "receipt-signing",
	"opportunity_missing":          "receipt-signing",
	"key_rotation":                 "contract-activation-signing",
	"contract_redaction_request":   "contract-activation-signing",
}

var pipelockEnvelope = []string{"record_type", "receipt_version", "payload_kind", "event_id", "timestamp", "principal",
	"actor", "delegation_chain", "signature", "chain_seq", "chain_prev_hash", "active_manifest_hash", "contract_hash",
	"selector_id", "contract_generation", "payload"}

var pipelockSignatureFields = []string{"signer_key_id", "key_purpose", "algorithm", "signature"}

func isPipelock(doc *canon.Value) bool {
	return str(doc, "record_type") == "evidence_receipt_v2"
}

func pipelockChainHash(doc *canon.Value) (string, error) {
	b, _, err := canonicalNFC(canon.Pipelock(), goDecoded(doc))
	if err != nil {
		return "", err
	}
	return sha256Hex(b), nil
}

// pipelockSigningInput is the receipt with its signature object zeroed,
// as the reference reads it: its decoder turns each lone surrogate into
// U+FFFD before it normalizes and signs.
func pipelockSigningInput(doc *canon.Value) ([]byte, bool, error) {
	doc = goDecoded(doc)
	zero := canon.Value{Kind: canon.Object}
	for _, name := range pipelockSignatureFields {
		zero.Members = append(zero.Members, canon.Member{Name: name, Value: canon.StringValue("")})
	}
	clone := canon.Value{Kind: canon.Object, Members: make([]canon.Member, len(doc.Members))}
	for i, m := range doc.Members {
		if m.Name == "signature" {
			m.Value = zero
		}
		clone.Members[i] = m
	}
	return canonicalNFC(canon.Pipelock(), &clone)
}

// hasGoEscapes reports whether v holds a character the pipelock form
// escapes where RFC 8785 writes it raw.
func hasGoEscapes(v *canon.Value) bool {
	switch v.Kind {
	case canon.String:
		return strings.ContainsAny(v.Text, "&<>\u2028\u2029")
	case canon.Array:
		return slices.ContainsFunc(v.Items, func(x canon.Value) bool { return hasGoEscapes(&x) })
	case canon.Object:
		for i := range v.Members {
			if strings.ContainsAny(v.Members[i].Name, "&<>\u2028\u2029") || hasGoEscapes(&v.Members[i].Value) {
				return true
			}
		}
	}
	return false
}

func checkPipelock(c *check) {
	doc := c.doc
	f := &c.res.Fields
	if v := doc.Get("receipt_version"); v == nil || v.Kind != canon.Number || v.Text != "2" {
		c.fail(AxisStructure, ReasonBadField, "receipt_version must be 2")
	}
	for _, m := range doc.Members {
		if !slices.Contains(pipelockEnvelope, m.Name) {
			c.fail(AxisStructure, ReasonBadField, "unknown envelope member "+quoteShort(m.Name))
		}
	}
	kind, _ := c.requireStr(doc, "", "payload_kind")
	f.ActionID, _ = c.requireStr(doc, "", "event_id")
	f.IssuedAt, _ = c.requireStr(doc, "", "timestamp")
	if kind != "" && pipelockAuthority[kind] == "" {
		c.fail(AxisStructure, ReasonBadField, "unknown payload_kind "+quoteShort(kind))
	}
	payload := doc.Get("payload")
	if payload == nil || payload.Kind != canon.Object {
		c.fail(AxisStructure, ReasonBadField, "payload must be an object")
	}
	f.ActionType = str(payload, "action_type")
	f.Decision = str(payload, "verdict")
	f.Step = integer(doc, "chain_seq")
	c.readLink()

	msg, changed, err := pipelockSigningInput(doc)
	if err != nil {
		// The reference cannot write a preimage for it either (a float, say),
		// so no signature can cover it.
		c.fail(AxisStructure, ReasonMalformed, "receipt cannot be canonicalized as the reference signs it: "+err.Error())
		c.fail(AxisSignature, ReasonMalformed, "no signable form: "+err.Error())
		return
	}
	if h, err := pipelockChainHash(doc); err == nil {
		c.res.Fingerprints.ChainHash = h
	}
	sigObj := doc.Get("signature")
	if sigObj == nil || sigObj.Kind != canon.Object {
		c.fail(AxisStructure, ReasonBadField, "signature must be an object")
		c.skip(AxisSignature, ReasonUncheckable, "no signature proof")
		return
	}
	for _, m := range sigObj.Members {
		if !slices.Contains(pipelockSignatureFields, m.Name) {
			c.fail(AxisStructure, ReasonBadField, "unknown signature member "+quoteShort(m.Name))
		}
	}
	kid, okKid := c.requireStr(sigObj, "signature.", "signer_key_id")
	purpose, okPurpose := c.requireStr(sigObj, "signature.", "key_purpose")
	alg, okAlg := c.requireStr(sigObj, "signature.", "algorithm")
	sigText, okSig := c.requireStr(sigObj, "signature.", "signature")
	f.KeyID, f.Signature = kid, sigText
	if want := pipelockAuthority[kind]; okPurpose && want != "" && purpose != want {
		c.fail(AxisStructure, ReasonBadField, "key_purpose "+quoteShort(purpose)+" may not sign "+kind+" (needs "+want+")")
	}
	if !okKid || !okAlg || !okSig {
		c.skip(AxisSignature, ReasonUncheckable, "signature proof incomplete")
		return
	}
	if alg != "ed25519" {
		c.fail(AxisSignature, ReasonUnsupportedAlg, "signature.algorithm "+quoteShort(alg)+": only ed25519 is defined")
		return
	}
	key := c.keyByID(kid)
	if key == nil {
		return
	}
	c.notRun(AxisIssuerBind, "pipelock names no issuer besides signer_key_id")
	c.keyStatus(key)
	hexSig, ok := strings.CutPrefix(sigText, pipelockSigPrefix)
	if !ok {
		c.fail(AxisSignature, ReasonBadEncoding, "signature.signature must start with "+pipelockSigPrefix)
		return
	}
	sig, err := sigalg.DecodeHex(hexSig)
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "signature is not hex: "+err.Error())
		return
	}
	c.verifySignature(key, alg, msg, sig)
	c.noteSignature(nfcNote(changed))
	if hasLoneSurrogate(doc) {
		c.noteSignature("each lone surrogate read as U+FFFD, as the Go reference's decoder reads it, and verified so")
	}
	if hasGoEscapes(doc) {
		c.noteSignature(`signed bytes in the Go reference's form: & < > U+2028 U+2029 escaped as \u0026 \u003c \u003e \u2028 \u2029`)
	}
}
