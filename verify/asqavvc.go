package verify

import (
	"github.com/receiptverify/verify/verify/canon"
)

// An Asqav receipt in the Asqav SDK's W3C VC door (doors.ts toW3cVc,
// doors.py to_w3c_vc) is a Verifiable Credential whose credentialSubject
// is the receipt itself, unchanged, and whose proof, of the SDK's own type
// AsqavReceiptSignature2026, repeats the receipt's signature and carries
// receiptDigest, "sha256:" + hex SHA-256 of the canonical receipt. The VC
// is not signed: the receipt inside it is, so the receipt is verified as
// its own format (receiptFromVc, then the SDK's verifier, is the SDK's
// way), and receiptDigest must be its digest (RFC 8785, the TypeScript
// SDK's, or the Asqav dialect with code-point member order, the Python
// SDK's). The rest of the envelope is not signed and not checked. The
// receipt's chain is not walked here. The SDK's Python vc_export
// (proofIsAsqavNative), which maps the receipt into a subject of its own
// and keeps only the signature, cannot be checked and is INCOMPLETE.
var asqavVCFormat = format{name: "asqav-vc", detect: isAsqavVC, check: checkAsqavVC, signs: []string{"credentialSubject"}}

const asqavVCProofType = "AsqavReceiptSignature2026"

func isAsqavVC(doc *canon.Value) bool {
	return str(doc.Get("proof"), "type") == asqavVCProofType && doc.Get("credentialSubject") != nil
}

// asqavVCInner are the formats the VC door wraps and this check verifies
// inside it.
var asqavVCInner = []*format{&asqavNativeFormat, &asqavHashFormat}

func checkAsqavVC(c *check) {
	subject := c.doc.Get("credentialSubject")
	proof := c.doc.Get("proof")
	var inner *format
	for _, f := range asqavVCInner {
		if subject.Kind == canon.Object && f.detect(subject) {
			inner = f
		}
	}
	if inner == nil {
		c.skip(AxisSignature, ReasonUnsupported, "credentialSubject is not an Asqav receipt (an export that keeps only its signature cannot be checked): verify the source receipt")
		return
	}
	sub := *c
	sub.doc, sub.f = subject, inner
	inner.check(&sub)
	c.canonBuf, c.sigBuf = sub.canonBuf, sub.sigBuf
	c.noteSignature("the " + inner.name + " receipt in credentialSubject")
	c.checkReceiptDigest(proof, subject)
}

// checkReceiptDigest compares proof.receiptDigest with the digest of the
// wrapped receipt in the two SDKs' canonical forms.
func (c *check) checkReceiptDigest(proof, subject *canon.Value) {
	want, ok := c.requireStr(proof, "proof.", "receiptDigest")
	if !ok {
		return
	}
	for _, d := range []canon.Dialect{canon.RFC8785(), canon.AsqavCodePoint()} {
		if b, err := d.Append(nil, subject); err == nil && "sha256:"+sha256Hex(b) == want {
			return
		}
	}
	if ax, ok := c.res.Axes.Get(AxisStructure); !ok || ax.Status != StatusFail {
		c.fail(AxisStructure, ReasonDigestMismatch, "proof.receiptDigest is not the digest of the receipt in credentialSubject")
	}
}
