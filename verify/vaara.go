package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/sigalg"
)

// A Vaara receipt (vaaraio/vaara SPEC.md, vaara.receipt/v1) signs the
// JCS bytes of the object of its version, alg, backLink, decisionDerived
// and issuerAsserted members: ES256, the signature r||s in hex. The key is
// found by issuerAsserted.iss. signature and timestampAnchors are not
// signed: anchors are added after signing. Each anchor's anchoredDigest
// must be "sha256:" and the hex SHA-256 of those same signed bytes, a
// blinded method (rfc3161-blinded, ...) must carry a 32-byte hex
// anchorSalt and a plain one none, as the producer's
// verify_receipt_anchor requires; a false digest or salt fails the
// anchors axis. The token itself (an RFC 3161 TimeStampToken, a ledger or
// transparency-log proof) is not checked, so the time an anchor claims is
// never vouched for: with anchors whose digests hold, the axis stays
// NOT_RUN and its note says the time is unchecked.
var vaaraFormat = format{name: "vaara-receipt-v1", detect: isVaara, check: checkVaara, signs: vaaraSigned}

// vaaraSigned is the signed payload's members (SPEC.md 2.1), then the
// signature.
var vaaraSigned = []string{"version", "alg", "backLink", "decisionDerived", "issuerAsserted", "signature"}

func isVaara(doc *canon.Value) bool {
	d, i := doc.Get("decisionDerived"), doc.Get("issuerAsserted")
	return d != nil && d.Kind == canon.Object && i != nil && i.Kind == canon.Object &&
		doc.Get("backLink") != nil && doc.Get("signature") != nil
}

func checkVaara(c *check) {
	doc := c.doc
	f := &c.res.Fields
	ia := doc.Get("issuerAsserted")
	dd := doc.Get("decisionDerived")
	f.IssuerID = str(ia, "iss")
	f.AgentID = str(ia, "sub")
	f.IssuedAt = str(ia, "iat")
	f.Nonce = str(ia, "nonce")
	f.Decision = str(dd, "decision")
	if bl := doc.Get("backLink"); bl != nil && bl.Kind == canon.Object {
		f.ActionID = str(bl, "attestationNonce")
	}
	var payload canon.Value
	payload.Kind = canon.Object
	for _, name := range vaaraSigned[:5] {
		v := doc.Get(name)
		if v == nil {
			c.fail(AxisStructure, ReasonMissingField, name+" is missing: it is part of the signed payload")
			return
		}
		payload.Members = append(payload.Members, canon.Member{Name: name, Value: *v})
	}
	if v := integer(doc, "version"); v == nil || *v != 1 {
		c.skip(AxisStructure, ReasonUnsupported, "version "+jsonText(doc.Get("version"))+" is not 1")
		return
	}
	msg, err := canon.RFC8785().Append(nil, &payload)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "the signed payload cannot be canonicalized: "+err.Error())
		return
	}
	c.vaaraAnchors(msg)
	alg, _ := c.requireStr(doc, "", "alg")
	sigText, okSig := c.requireStr(doc, "", "signature")
	f.Signature = sigText
	if !okSig {
		return
	}
	if f.IssuerID == "" {
		c.skip(AxisIssuerKey, ReasonUnknownKey, "issuerAsserted.iss names no key")
		c.skip(AxisSignature, ReasonUncheckable, "no key")
		return
	}
	if ia := str(ia, "alg"); ia != "" && ia != alg {
		c.fail(AxisStructure, ReasonBadField, "issuerAsserted.alg "+quoteShort(ia)+" is not alg "+quoteShort(alg))
	}
	key := c.keyByID(f.IssuerID)
	if key == nil {
		return
	}
	c.notRun(AxisIssuerBind, "the key is found by issuerAsserted.iss")
	c.keyStatus(key)
	sig, err := sigalg.DecodeHex(sigText)
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "signature is not hex: "+err.Error())
		return
	}
	c.verifySignature(key, alg, msg, sig)
}

// vaaraAnchors judges timestampAnchors against msg, the signed payload's
// bytes.
func (c *check) vaaraAnchors(msg []byte) {
	a := c.doc.Get("timestampAnchors")
	if a == nil || a.Kind == canon.Null || (a.Kind == canon.Array && len(a.Items) == 0) {
		c.notRun(AxisAnchors, "no timestampAnchors")
		return
	}
	if a.Kind != canon.Array {
		c.fail(AxisAnchors, ReasonBadAnchor, "timestampAnchors must be a list, not a "+a.Kind.String())
		return
	}
	sum := sha256.Sum256(msg)
	want := "sha256:" + hex.EncodeToString(sum[:])
	var methods []string
	for i := range a.Items {
		an := &a.Items[i]
		where := "timestampAnchors[" + itoa(i) + "]"
		if an.Kind != canon.Object {
			c.fail(AxisAnchors, ReasonBadAnchor, where+" is not an object")
			return
		}
		method := str(an, "method")
		methods = append(methods, method)
		if d := str(an, "anchoredDigest"); d != want {
			c.fail(AxisAnchors, ReasonBadAnchor, where+" ("+quoteShort(method)+"): anchoredDigest "+quoteShort(d)+" is not the signed payload's "+want)
			return
		}
		salt := an.Get("anchorSalt")
		switch blinded := strings.HasSuffix(method, "-blinded"); {
		case blinded && (salt == nil || salt.Kind != canon.String || len(salt.Text) != 64 || !isHexHash(salt.Text)):
			c.fail(AxisAnchors, ReasonBadAnchor, where+": a blinded anchor must carry anchorSalt, 32 bytes of hex")
			return
		case !blinded && salt != nil:
			c.fail(AxisAnchors, ReasonBadAnchor, where+": anchorSalt on the unblinded method "+quoteShort(method))
			return
		}
	}
	c.notRun(AxisAnchors, itoa(len(a.Items))+" anchor(s) ("+strings.Join(methods, ", ")+"): anchoredDigest is the signed payload's; the tokens, and so the times they claim, are not checked")
}
