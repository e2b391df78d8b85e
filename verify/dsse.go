package verify

import (
	"strconv"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/sigalg"
)

// A DSSE attestation, {payloadType, payload (base64), signatures: [{keyid,
// sig}]}, is signed over the pre-authentication encoding
// "DSSEv1 " len(type) " " type " " len(body) " " body of the decoded
// payload. Every signature whose key the directory knows must verify, and
// at least one must.
func init() {
	registerFormat(format{name: "dsse-attestation", priority: 5, detect: isDSSE, check: checkDSSE})
}

func isDSSE(doc *canon.Value) bool {
	return doc.Get("payloadType") != nil && doc.Get("signatures") != nil && doc.Get("payload") != nil
}

// PAE is the DSSE v1 pre-authentication encoding.
func PAE(payloadType string, body []byte) []byte {
	out := make([]byte, 0, len(payloadType)+len(body)+32)
	out = append(out, "DSSEv1 "...)
	out = strconv.AppendInt(out, int64(len(payloadType)), 10)
	out = append(out, ' ')
	out = append(out, payloadType...)
	out = append(out, ' ')
	out = strconv.AppendInt(out, int64(len(body)), 10)
	out = append(out, ' ')
	return append(out, body...)
}

func checkDSSE(c *check) {
	typ, ok1 := c.requireStr(c.doc, "", "payloadType")
	payload, ok2 := c.requireStr(c.doc, "", "payload")
	sigs := c.doc.Get("signatures")
	if !ok1 || !ok2 {
		return
	}
	if sigs.Kind != canon.Array || len(sigs.Items) == 0 {
		c.fail(AxisStructure, ReasonBadField, "signatures must be a non-empty list")
		return
	}
	body, err := sigalg.DecodeBase64Any(payload)
	if err != nil {
		c.fail(AxisStructure, ReasonBadEncoding, "payload is not base64: "+err.Error())
		return
	}
	dsseFields(c, body)
	msg := PAE(typ, body)
	verified := 0
	var lastErr error
	for i := range sigs.Items {
		s := &sigs.Items[i]
		kid, sigText := str(s, "keyid"), str(s, "sig")
		if s.Kind != canon.Object || sigText == "" {
			c.fail(AxisStructure, ReasonBadField, "signatures["+itoa(i)+"] needs a sig")
			return
		}
		key, err := c.v.keys.ResolveAsqav(kid, c.res.Fields.AgentID, c.res.Fields.IssuerID, "")
		if err != nil {
			lastErr = err
			continue
		}
		c.pass(AxisIssuerKey, key.Label())
		c.res.Fields.KeyID = key.KID
		c.res.Fields.Signature = sigText
		c.keyStatus(key)
		sig, err := sigalg.DecodeBase64Any(sigText)
		if err != nil {
			c.fail(AxisSignature, ReasonBadEncoding, "signatures["+itoa(i)+"].sig is not base64")
			return
		}
		c.verifySignature(key, "", msg, sig)
		verified++
	}
	if verified == 0 {
		c.resolveFailed(lastErr)
	}
	c.notRun(AxisIssuerBind, "DSSE envelopes name no issuer outside the payload")
	c.notRun(AxisAnchors, "DSSE envelopes carry no anchors")
}

// dsseFields reads the normalized fields from an in-toto Statement body,
// when the body is one.
func dsseFields(c *check, body []byte) {
	st, err := canon.Parse(body, receiptParse)
	if err != nil || st.Kind != canon.Object {
		return
	}
	pred := st.Get("predicate")
	if pred == nil || pred.Kind != canon.Object {
		return
	}
	f := &c.res.Fields
	f.ActionID = str(pred, "action_id")
	f.AgentID = str(pred, "agent_id")
	f.IssuerID = str(pred, "issuer_id")
	f.ActionType = str(pred, "action_type")
	f.ToolName = str(pred, "tool_name")
	f.ToolFingerprint = str(pred, "tool_fingerprint")
	f.IssuedAt = firstStr(pred, "issued_at", "timestamp")
}
