package verify

import (
	"bytes"
	"crypto/sha256"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/sigalg"
)

// An ACTA receipt (draft-farley-acta-signed-receipts, the draft Asqav
// profiles) is {payload, signature: {alg, kid, sig}}: Ed25519 over the
// canonical bytes of payload, signed directly, the signature in hex
// (lowercase as issued). Keys come from a JWK set, by kid.
//
// The canonical form is RFC 8785 (JCS), as the issuer (ScopeBlind's
// a2a-trust-header generator, over agent-passport-system's
// canonicalizeJCS) signs it and says in signature.canonicalization
// ("RFC8785-JCS"). The reference verifier (a2a-trust-header/verify.ts)
// canonicalizes with RFC 8785 whatever that member says, and so does this
// tool, naming any other value in the signature's note. Nothing is
// Unicode-normalized: the issuer signs the text as given.
//
// Detection: payload and signature objects, no anchors member (the
// Asqav-native envelope marker) and a signature.sig of hex: lowercase, as
// the issuer writes it, or, since APS verify decodes hex of any case, any
// case when it is 128 characters, an Ed25519 signature, the only kind
// ACTA signs. Asqav-native signatures are base64, which always carries
// characters lowercase hex does not, and no Asqav algorithm makes a
// 96-byte signature, which is what 128 base64 characters would be: so the
// shapes stay disjoint and the case of the hex never moves a receipt to
// another format. A sig that mixes the cases is ACTA still, and fails its
// signature axis as an encoding this tool refuses (sigalg.DecodeHex).
//
// Chain: payload.previousReceiptHash is the hex SHA-256 of the canonical
// bytes of the full predecessor receipt, signature included. A genesis
// receipt omits it; null is malformed. A chain is one issuer's: the
// reference issuer chains across its agents (conformance case
// acta-02-chain-link links two agents of one issuer).
//
// Commitment mode (signing SHA-256 of the canonical bytes) is not
// implemented; a receipt whose signature verifies only that way fails the
// signature axis as unsupported, never passes.
var actaFormat = format{name: "acta", detect: isACTA, check: checkACTA, signs: []string{"payload", "signature"}, chain: &chainRule{
	hash: actaChainHash,
	link: linkRule{path: []string{"payload", "previousReceiptHash"}, absent: linkNone, null: linkBad},
	scope: func(name string, doc *canon.Value) string {
		return scopeKey(name, firstStr(doc.Get("payload"), "issuer_id", "issuer"))
	},
}}

func isACTA(doc *canon.Value) bool {
	p, s := doc.Get("payload"), doc.Get("signature")
	if p == nil || p.Kind != canon.Object || s == nil || s.Kind != canon.Object || doc.Get("anchors") != nil {
		return false
	}
	sig := s.Get("sig")
	return sig != nil && sig.Kind == canon.String && isACTASigText(sig.Text)
}

// actaSigHexLen is the length of an Ed25519 signature in hex.
const actaSigHexLen = 2 * 64

// isACTASigText reports whether s is an ACTA signature's text: non-empty,
// even-length lowercase hex, or hex of any case at actaSigHexLen.
func isACTASigText(s string) bool {
	if s == "" || len(s)%2 != 0 {
		return false
	}
	anyCase := len(s) == actaSigHexLen
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && (!anyCase || c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}

func actaChainHash(doc *canon.Value) (string, error) {
	b, err := canon.RFC8785().Append(nil, doc)
	if err != nil {
		return "", err
	}
	return sha256Hex(b), nil
}

// actaCanonicalization is the one ACTA names, and the note to give when it
// is another: this tool, like the reference verifier, checks RFC 8785
// whatever the member says.
const actaCanonicalization = "RFC8785-JCS"

func actaCanonicalizationNote(sigObj *canon.Value) string {
	v := sigObj.Get("canonicalization")
	if v == nil || (v.Kind == canon.String && v.Text == actaCanonicalization) {
		return ""
	}
	label := jsonText(v)
	if v.Kind == canon.String {
		label = quoteShort(v.Text)
	}
	return "signature.canonicalization is " + label + ", not " + actaCanonicalization + ": RFC 8785 was checked, as the reference verifier does whatever the member says"
}

func checkACTA(c *check) {
	p, sigObj := c.doc.Get("payload"), c.doc.Get("signature")
	f := &c.res.Fields
	f.ActionID = str(p, "action_id")
	f.AgentID = str(p, "agent_id")
	f.IssuerID = firstStr(p, "issuer_id", "issuer")
	f.OrgID = str(p, "org_id")
	f.SessionID = str(p, "session_id")
	f.ActionType = str(p, "action_type")
	f.ToolName = str(p, "tool_name")
	f.ToolFingerprint = str(p, "tool_fingerprint")
	f.Nonce = str(p, "nonce")
	// A deny receipt of the issuer carries attempted_at instead.
	f.IssuedAt = firstStr(p, "issued_at", "attempted_at")
	f.ExpiresAt = str(p, "expires_at")
	f.Decision = str(p, "decision")

	alg, okAlg := c.requireStr(sigObj, "signature.", "alg")
	kid, okKid := c.requireStr(sigObj, "signature.", "kid")
	sigText, okSig := c.requireStr(sigObj, "signature.", "sig")
	f.KeyID, f.Signature = kid, sigText

	if h, err := actaChainHash(c.doc); err == nil {
		c.res.Fingerprints.ChainHash = h
	}
	c.readLink()

	msg, err := canon.RFC8785().Append(nil, p)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "payload cannot be canonicalized: "+err.Error())
		return
	}
	if !okAlg || !okKid || !okSig {
		c.skip(AxisSignature, ReasonUncheckable, "signature triple incomplete")
		return
	}
	if a, err := sigalg.ParseAlg(alg); err != nil || a != sigalg.Ed25519 {
		c.fail(AxisSignature, ReasonUnsupportedAlg, "ACTA alg "+quoteShort(alg)+": only the EdDSA baseline is implemented")
		return
	}
	key := c.keyByID(kid)
	if key == nil {
		return
	}
	// False-attestation guard of the reference: a payload that names an
	// issuer must name the signing key.
	switch issuer := f.IssuerID; {
	case issuer != "" && issuer != kid:
		c.fail(AxisIssuerBind, ReasonIssuerMismatch, "payload names issuer "+quoteShort(issuer)+" but is signed by kid "+quoteShort(kid))
	case issuer != "":
		c.pass(AxisIssuerBind, "issuer is the signing kid")
	default:
		c.notRun(AxisIssuerBind, "payload names no issuer")
	}
	if pk := sigObj.Get("pubkey"); pk != nil {
		raw, err := sigalg.DecodeHex(str(sigObj, "pubkey"))
		if pk.Kind != canon.String || err != nil || !bytes.Equal(raw, key.Public.Bytes()) {
			c.fail(AxisIssuerBind, ReasonIssuerMismatch, "signature.pubkey is not the directory's key for kid "+quoteShort(kid))
		}
	}
	c.keyStatus(key)
	sig, err := sigalg.DecodeHex(sigText)
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "signature.sig is not hex: "+err.Error())
		return
	}
	c.verifySignature(key, alg, msg, sig)
	canonNote := actaCanonicalizationNote(sigObj)
	if ax := c.res.Axes.Of(AxisSignature); ax.Status == StatusFail && ax.Reason == ReasonBadSignature {
		sum := sha256.Sum256(msg)
		if key.Verify(sum[:], sig) == nil {
			c.fail(AxisSignature, ReasonUnsupported, "the signature covers SHA-256 of the canonical payload: ACTA commitment mode, which this tool does not verify")
			return
		}
		c.noteFailure(canonNote)
		c.hintNormalization(key, canon.RFC8785(), p, sig)
		return
	}
	c.noteSignature(canonNote)
}
