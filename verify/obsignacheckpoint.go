package verify

import (
	"strings"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/sigalg"
)

// An obsigna chain-head checkpoint: the signed claim its daemon emits to an
// out-of-band anchor log after receipts, {chain_id, sequence, receipt_hash,
// timestamp}, with verification_method and signature beside it (obsigna
// daemon/internal/checkpoint, Sign and Verify). The signature is Ed25519
// over the RFC 8785 bytes of those four members alone, multibase 'u'
// (base64url, no padding), by the key verification_method names, looked up
// as an agent receipt's verificationMethod is. A line of the anchor log
// itself, {"anchored_at", "event_type": "checkpoint", "payload": {...}},
// is read as its payload; the log's other events (rotation) are not
// checkpoints.
//
// It names the head of the agentreceipts chain chain_id: the receipt at
// sequence, whose hash is receipt_hash ("sha256:" + hex). A verified one
// is completeness evidence as a C2SP checkpoint is (Fields.Lifecycle, kind
// checkpoint): obsigna's own `receipt verify --against-anchor` fails a
// store whose head is behind it (truncation) or whose head hash differs.
var obsignaCheckpointFormat = format{name: "obsigna-checkpoint", detect: isObsignaCheckpoint, check: checkObsignaCheckpoint,
	signs: []string{"chain_id", "sequence", "receipt_hash", "timestamp", "signature", "payload"},
	chain: &chainRule{
		hash: func(doc *canon.Value) (string, error) {
			b, err := canon.RFC8785().Append([]byte("obsigna-checkpoint\x00"), doc)
			return sha256Hex(b), err
		},
		// A checkpoint names a head; it links to nothing.
		link: linkRule{path: []string{"checkpoint_link"}},
		scope: func(_ string, doc *canon.Value) string {
			return scopeKey(agentReceiptsFormat.name, str(obsignaCheckpointBody(doc), "chain_id"))
		},
	}}

// obsignaCheckpointBody is the signed checkpoint: the document, or an
// anchor log record's payload.
func obsignaCheckpointBody(doc *canon.Value) *canon.Value {
	if str(doc, "event_type") == "checkpoint" {
		if p := doc.Get("payload"); p != nil && p.Kind == canon.Object {
			return p
		}
	}
	return doc
}

func isObsignaCheckpoint(doc *canon.Value) bool {
	body := obsignaCheckpointBody(doc)
	for _, name := range []string{"chain_id", "receipt_hash", "verification_method", "signature"} {
		if v := body.Get(name); v == nil || v.Kind != canon.String {
			return false
		}
	}
	return body.Get("sequence") != nil
}

func checkObsignaCheckpoint(c *check) {
	body := obsignaCheckpointBody(c.doc)
	f := &c.res.Fields
	_, okChain := c.requireStr(body, "", "chain_id")
	hash, okHash := c.requireStr(body, "", "receipt_hash")
	ts, okTS := c.requireStr(body, "", "timestamp")
	vm, okVM := c.requireStr(body, "", "verification_method")
	sig, okSig := c.requireStr(body, "", "signature")
	seq := integer(body, "sequence")
	if seq == nil || *seq < 0 {
		c.fail(AxisStructure, ReasonBadField, "sequence must be a non-negative integer")
	}
	head, hasPrefix := strings.CutPrefix(hash, "sha256:")
	if okHash && (!hasPrefix || !isHexHash(head)) {
		c.fail(AxisStructure, ReasonBadField, "receipt_hash "+quoteShort(hash)+" must be sha256: and 64 hex digits")
	}
	f.IssuedAt, f.KeyID, f.Signature = ts, vm, sig
	f.ActionType = "checkpoint"
	if seq != nil {
		f.Step = seq
		f.Lifecycle = &Lifecycle{Kind: LifecycleCheckpoint, FinalSeq: *seq, Head: strings.ToLower(head)}
	}
	c.notRun(AxisIssuerBind, "a checkpoint names its signer only by its verification method")
	c.unlinked = "a checkpoint names its chain's head; it links to nothing"
	if !okChain || !okHash || !okTS || !okVM || !okSig || seq == nil {
		c.skip(AxisSignature, ReasonUncheckable, "no checkpoint to check")
		return
	}
	signed := canon.ObjectValue(
		canon.Member{Name: "chain_id", Value: *body.Get("chain_id")},
		canon.Member{Name: "sequence", Value: *body.Get("sequence")},
		canon.Member{Name: "receipt_hash", Value: *body.Get("receipt_hash")},
		canon.Member{Name: "timestamp", Value: *body.Get("timestamp")},
	)
	msg, err := canon.RFC8785().Append(nil, &signed)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "the checkpoint has no RFC 8785 form: "+err.Error())
		c.skip(AxisSignature, ReasonUncheckable, "no signing input")
		return
	}
	key := c.resolveDID(vm)
	if key == nil {
		return
	}
	base, raw, err := sigalg.DecodeMultibase(sig)
	switch {
	case err == nil && base != 'u':
		c.fail(AxisSignature, ReasonBadEncoding, "signature must be multibase 'u' (base64url), not "+quoteShort(sig[:1]))
		return
	case err != nil:
		c.fail(AxisSignature, ReasonBadEncoding, "signature is not multibase base64url: "+err.Error())
		return
	}
	c.verifySignature(key, string(sigalg.Ed25519), msg, raw)
}
