package verify

import (
	"bytes"
	"strings"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// An ACTA artifact is the signed envelope of @veritasacta/artifacts, what
// protect-mcp 0.4 to 0.9 wrote for each tool-call decision before its
// draft-02 envelopes (the acta format) in 0.10: Ed25519, in lowercase hex
// in a top-level signature string, over the canonical bytes of every other
// member of the artifact. Two shapes:
//
//   - v2, the structured envelope (createSignedArtifact): {v: 2, type,
//     algorithm, kid, issuer, issued_at, payload, signature}; the envelope
//     members are signed with the payload;
//   - v1, the flat artifact (signArtifact): {v: 1, type, timestamp, ...,
//     signature}, the decision's members beside them.
//
// The library writes JSON.stringify of the artifact with its member names
// sorted, which is RFC 8785 (names are ASCII there, numbers and strings
// ECMAScript's) but for a member name that is an array index ("9", "10"):
// a JavaScript object puts those first, in numeric order, whatever order
// they were inserted in. @veritasacta/verify checks RFC 8785 and refuses
// that older order (legacy_non_jcs_signature) unless told to accept it;
// so does this tool, which fails such a signature.
//
// The key is found by kid (v2, and a v1 artifact that names one), else by
// the value of an embedded public_key the key files list; @veritasacta/verify
// takes the key its caller gives, and refuses an embedded one. An embedded
// public_key that is not the kid's key is issuer_mismatch. Artifacts do
// not chain.
var actaArtifactFormat = format{name: "acta-artifact", detect: isACTAArtifact, check: checkACTAArtifact}

func isACTAArtifact(doc *canon.Value) bool {
	v, sig := doc.Get("v"), doc.Get("signature")
	if v == nil || v.Kind != canon.Number || sig == nil || sig.Kind != canon.String ||
		len(sig.Text) != actaSigHexLen || !isACTASigText(sig.Text) || str(doc, "type") == "" {
		return false
	}
	switch v.Text {
	case "2":
		p := doc.Get("payload")
		return str(doc, "kid") != "" && p != nil && p.Kind == canon.Object
	case "1":
		return str(doc, "timestamp") != "" && doc.Get("payload") == nil
	}
	return false
}

func checkACTAArtifact(c *check) {
	doc := c.doc
	f := &c.res.Fields
	v2 := doc.Get("v").Text == "2"
	body := doc
	if v2 {
		body = doc.Get("payload")
		f.IssuedAt = str(doc, "issued_at")
		f.IssuerID = str(doc, "issuer")
	} else {
		f.IssuedAt = str(doc, "timestamp")
	}
	f.ActionType = str(doc, "type")
	f.ActionID = str(body, "request_id")
	f.AgentID = str(body, "agent_id")
	f.ToolName = firstStr(body, "tool", "tool_name")
	f.Decision = str(body, "decision")
	sigText := str(doc, "signature")
	f.Signature = sigText

	signed := withoutMembers(doc, "signature")
	msg, err := canon.RFC8785().Append(nil, &signed)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "artifact cannot be canonicalized: "+err.Error())
		return
	}
	if alg := str(doc, "algorithm"); alg != "" && !strings.EqualFold(alg, "ed25519") && !strings.EqualFold(alg, "eddsa") {
		c.fail(AxisSignature, ReasonUnsupportedAlg, "artifact algorithm "+quoteShort(alg)+": only Ed25519 is implemented")
		return
	}
	key := c.actaArtifactKey(doc, body)
	if key == nil {
		return
	}
	c.keyStatus(key)
	sig, err := sigalg.DecodeHex(sigText)
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "signature is not hex: "+err.Error())
		return
	}
	c.verifySignature(key, string(sigalg.Ed25519), msg, sig)
	if ax := c.res.Axes.Of(AxisSignature); ax.Status == StatusFail && ax.Reason == ReasonBadSignature {
		c.hintNormalization(key, canon.RFC8785(), &signed, sig)
	}
}

// actaArtifactKey finds the artifact's key: by kid, else by an embedded
// public_key (in the payload, or the flat artifact) the key files list.
// An embedded key that is not the kid's key fails the issuer binding.
func (c *check) actaArtifactKey(doc, body *canon.Value) *keys.Key {
	kid := str(doc, "kid")
	c.res.Fields.KeyID = kid
	embedded := str(body, "public_key")
	var raw []byte
	if embedded != "" {
		var err error
		if raw, err = sigalg.DecodeHexN(embedded, 32); err != nil {
			c.fail(AxisStructure, ReasonBadField, "public_key is not 32 bytes of hex: "+err.Error())
			raw = nil
		}
	}
	if kid == "" {
		if raw == nil {
			r := ReasonUnknownKey
			if c.v.keys.Len() == 0 {
				r = ReasonNoKeys
			}
			c.skip(AxisIssuerKey, r, "the artifact names no kid and embeds no key")
			c.skip(AxisSignature, ReasonUncheckable, "no key")
			return nil
		}
		key, err := c.v.keys.ByPublicKey(sigalg.Ed25519, raw)
		if err != nil {
			c.resolveFailed(err)
			return nil
		}
		c.pass(AxisIssuerKey, key.Label())
		c.res.Fields.KeyID = key.KID
		return key
	}
	key := c.keyByID(kid)
	if key == nil {
		return nil
	}
	switch {
	case raw != nil && (key.Public == nil || !bytes.Equal(raw, key.Public.Bytes())):
		c.fail(AxisIssuerBind, ReasonIssuerMismatch, "public_key is not the key files' key for kid "+quoteShort(kid))
	case raw != nil:
		c.pass(AxisIssuerBind, "the embedded public_key is the kid's key")
	}
	return key
}
