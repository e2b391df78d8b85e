package verify

import (
	"strings"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/sigalg"
)

// A webaes action receipt, as @agent-receipts/mcp-server
// (webaesbyamin/agent-receipts, packages/crypto) writes it, is a flat
// object of which only twelve members are signed: Ed25519 over
// JSON.stringify(payload, sortedNames) of those members, absent ones left
// out as JSON.stringify leaves out undefined. The signature is
// "ed25519:" and base64; the key is the installation's, named by nothing
// on the wire, so the key files list it under the receipt's agent_id.
// Every other member (cost_usd, tool_calls, metadata, parent_receipt_id,
// ...) can be changed without breaking the signature: the coverage note
// names them.
var webaesFormat = format{name: "webaes-action-receipt", detect: isWebaes, check: checkWebaes, signs: webaesSigned}

// webaesSigned is getSignablePayload's list in the order its sorted
// replacer writes them (ASCII names: code-unit order is byte order), and
// the signature's own member.
var webaesSigned = []string{"action", "agent_id", "chain_id", "completed_at", "environment", "input_hash",
	"org_id", "output_hash", "receipt_id", "receipt_type", "status", "timestamp", "signature"}

func isWebaes(doc *canon.Value) bool {
	sig, id := doc.Get("signature"), doc.Get("receipt_id")
	return sig != nil && sig.Kind == canon.String && strings.HasPrefix(sig.Text, "ed25519:") &&
		id != nil && id.Kind == canon.String && doc.Get("input_hash") != nil
}

func checkWebaes(c *check) {
	doc := c.doc
	f := &c.res.Fields
	var payload canon.Value
	payload.Kind = canon.Object
	for _, name := range webaesSigned[:len(webaesSigned)-1] {
		v := doc.Get(name)
		if v == nil {
			continue
		}
		if v.Kind != canon.String && v.Kind != canon.Null {
			c.fail(AxisStructure, ReasonBadField, name+" must be a string or null, not "+v.Kind.String())
			continue
		}
		payload.Members = append(payload.Members, canon.Member{Name: name, Value: *v})
	}
	f.ActionID = str(doc, "receipt_id")
	f.AgentID = str(doc, "agent_id")
	f.OrgID = str(doc, "org_id")
	f.ActionType = str(doc, "action")
	f.IssuedAt = str(doc, "timestamp")
	msg, err := appendJSONStringify(nil, &payload)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "the signed members cannot be serialized as JSON.stringify would: "+err.Error())
		return
	}
	sigText, _ := c.requireStr(doc, "", "signature")
	f.Signature = sigText
	agent, ok := c.requireStr(doc, "", "agent_id")
	if !ok {
		c.skip(AxisSignature, ReasonUncheckable, "no agent_id to find the key by")
		return
	}
	key := c.keyByID(agent)
	if key == nil {
		return
	}
	c.notRun(AxisIssuerBind, "the key is found by agent_id; the receipt names no other issuer")
	c.keyStatus(key)
	sig, err := sigalg.DecodeBase64Any(strings.TrimPrefix(sigText, "ed25519:"))
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "signature is not ed25519:<base64>: "+err.Error())
		return
	}
	c.verifySignature(key, string(sigalg.Ed25519), msg, sig)
}
