package verify

import (
	"errors"
	"strconv"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// An sb-runtime receipt (ScopeBlind/sb-runtime, crates/sb-receipt) is
// {payload, signature, pubkey}: Ed25519, hex, over canon.SBRuntime bytes
// of the payload as sb_receipt::Payload holds it after serde reads it.
// That struct keeps type, decision, action {kind, target}, policy_id
// (written null when absent), sequence, prev_hash, timestamp and a
// non-empty context, and drops every other member before signing and
// before checking: such members are named as not signed, as
// `sb verify` ignores them. The key is embedded: `sb verify` trusts the
// first receipt's, this tool only a key the key files list (an unlisted
// one leaves the receipt INCOMPLETE, unknown_key, its signature still
// checked). Chain: prev_hash is "genesis" on sequence 1, else "sha256:"
// and the hex SHA-256 of the predecessor's payload bytes; a chain is one
// key's, as `sb verify` walks one key's receipts.
var sbRuntimeFormat = format{name: "sb-runtime", detect: isSBRuntime, check: checkSBRuntime, signs: []string{"payload", "signature"}, chain: &chainRule{
	hash:  sbRuntimeChainHash,
	link:  linkRule{path: []string{"payload", "prev_hash"}, absent: linkBad, null: linkBad, genesis: []string{"genesis"}, prefix: "sha256:"},
	scope: func(name string, doc *canon.Value) string { return scopeKey(name, str(doc, "pubkey")) },
}}

// sbRuntimePayloadType is the type every sb-runtime payload carries.
const sbRuntimePayloadType = "scopeblind.receipt.v1"

func isSBRuntime(doc *canon.Value) bool {
	p := doc.Get("payload")
	return p != nil && p.Kind == canon.Object && str(p, "type") == sbRuntimePayloadType &&
		doc.Get("pubkey") != nil && doc.Get("signature") != nil
}

// sbRuntimePayloadStrings are the payload's string members.
var sbRuntimePayloadStrings = []string{"type", "decision", "prev_hash", "timestamp"}

// sbRuntimeSigned returns the payload as sb_receipt::Payload serializes
// it, the names of the members serde drops (as "payload.x"), and an error
// naming the member serde would refuse.
func sbRuntimeSigned(doc *canon.Value) (canon.Value, []string, error) {
	p := doc.Get("payload")
	out := canon.Value{Kind: canon.Object}
	var dropped []string
	add := func(name string, v canon.Value) {
		out.Members = append(out.Members, canon.Member{Name: name, Value: v})
	}
	for _, name := range sbRuntimePayloadStrings {
		v := p.Get(name)
		if v == nil || v.Kind != canon.String {
			return out, nil, sbRuntimeFieldError("payload."+name, "must be a string")
		}
		add(name, *v)
	}
	a := p.Get("action")
	if a == nil || a.Kind != canon.Object {
		return out, nil, sbRuntimeFieldError("payload.action", "must be an object")
	}
	action := canon.Value{Kind: canon.Object}
	for _, m := range a.Members {
		if m.Name != "kind" && m.Name != "target" {
			dropped = append(dropped, "payload.action."+m.Name)
			continue
		}
		if m.Value.Kind != canon.String {
			return out, nil, sbRuntimeFieldError("payload.action."+m.Name, "must be a string")
		}
		action.Members = append(action.Members, m)
	}
	if len(action.Members) != 2 {
		return out, nil, sbRuntimeFieldError("payload.action", "must have kind and target")
	}
	add("action", action)
	switch v := p.Get("policy_id"); {
	case v == nil:
		add("policy_id", canon.Value{Kind: canon.Null})
	case v.Kind == canon.Null || v.Kind == canon.String:
		add("policy_id", *v)
	default:
		return out, nil, sbRuntimeFieldError("payload.policy_id", "must be a string or null")
	}
	seq := p.Get("sequence")
	if seq == nil || seq.Kind != canon.Number {
		return out, nil, sbRuntimeFieldError("payload.sequence", "must be a number")
	}
	if _, err := strconv.ParseUint(seq.Text, 10, 64); err != nil {
		return out, nil, sbRuntimeFieldError("payload.sequence", "must be an integer in [0, 2^64-1], not "+quoteShort(seq.Text))
	}
	add("sequence", *seq)
	switch ctx := p.Get("context"); {
	case ctx == nil || ctx.Kind == canon.Null:
		// serde's default: an empty map, not written.
	case ctx.Kind != canon.Object:
		return out, nil, sbRuntimeFieldError("payload.context", "must be an object")
	case len(ctx.Members) > 0:
		add("context", *ctx)
	}
	for _, m := range p.Members {
		switch m.Name {
		case "type", "decision", "action", "policy_id", "sequence", "prev_hash", "timestamp", "context":
		default:
			dropped = append(dropped, "payload."+m.Name)
		}
	}
	return out, dropped, nil
}

// sbRuntimeFieldError names a payload member serde would refuse.
func sbRuntimeFieldError(where, what string) error { return errors.New(where + " " + what) }

func sbRuntimeChainHash(doc *canon.Value) (string, error) {
	signed, _, err := sbRuntimeSigned(doc)
	if err != nil {
		return "", err
	}
	b, err := canon.SBRuntime().Append(nil, &signed)
	if err != nil {
		return "", err
	}
	return sha256Hex(b), nil
}

func checkSBRuntime(c *check) {
	doc := c.doc
	f := &c.res.Fields
	p := doc.Get("payload")
	f.Decision = str(p, "decision")
	f.IssuedAt = str(p, "timestamp")
	f.ToolName = str(p.Get("action"), "kind")
	c.readLink()
	signed, dropped, err := sbRuntimeSigned(doc)
	if err != nil {
		c.fail(AxisStructure, ReasonBadField, err.Error())
		return
	}
	msg, err := canon.SBRuntime().Append(nil, &signed)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "payload cannot be written as sb-receipt does: "+err.Error())
		return
	}
	c.res.Fingerprints.ChainHash = sha256Hex(msg)
	seq := signed.Get("sequence").Text
	if genesis := str(p, "prev_hash") == "genesis"; genesis != (seq == "1") {
		c.fail(AxisChain, ReasonChainMismatch, "prev_hash \"genesis\" goes with sequence 1 and only with it; sequence is "+seq)
	}
	c.notRun(AxisPayloadDigest, "sb-runtime carries no payload digest")
	c.sbRuntimeSignature(msg)
	for _, name := range dropped {
		c.noteSignature("not signed: " + name + " (sb_receipt::Payload drops it)")
	}
}

func (c *check) sbRuntimeSignature(msg []byte) {
	pubHex, okKey := c.requireStr(c.doc, "", "pubkey")
	sigText, okSig := c.requireStr(c.doc, "", "signature")
	c.res.Fields.Signature = sigText
	if !okKey || !okSig {
		c.skip(AxisSignature, ReasonUncheckable, "no pubkey or signature")
		return
	}
	raw, err := sigalg.DecodeHexN(pubHex, 32)
	if err != nil {
		c.fail(AxisIssuerKey, ReasonMalformedKey, "pubkey is not 32 bytes of hex: "+err.Error())
		c.skip(AxisSignature, ReasonUncheckable, "no usable key")
		return
	}
	embedded, perr := sigalg.NewPublicKey(sigalg.Ed25519, raw)
	key, err := c.v.keys.ByPublicKey(sigalg.Ed25519, raw)
	if key == nil {
		c.resolveFailed(err)
		if perr != nil {
			c.skip(AxisSignature, ReasonUncheckable, "pubkey: "+perr.Error())
			return
		}
		// Checked under the embedded key: it says whether the payload is
		// what that key's holder signed.
		key = &keys.Key{KID: "embedded pubkey", Alg: sigalg.Ed25519, Public: embedded}
		c.notRun(AxisIssuerBind, "the embedded key is in no key file")
	} else {
		c.pass(AxisIssuerKey, key.Label())
		c.pass(AxisIssuerBind, "the embedded key is the key files' key")
		c.res.Fields.KeyID = key.KID
		c.keyStatus(key)
	}
	sig, err := sigalg.DecodeHex(sigText)
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "signature is not hex: "+err.Error())
		return
	}
	c.verifySignature(key, "", msg, sig)
}
