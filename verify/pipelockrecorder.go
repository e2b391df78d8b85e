package verify

import (
	"encoding/hex"
	"strconv"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/sigalg"
)

// A pipelock flight recorder checkpoint: an entry of the recorder's own hash
// chain, {"v", "seq", "ts", "session_id", "type": "checkpoint", "detail":
// {"entry_count", "first_seq", "last_seq", "signature"}, "prev_hash",
// "hash"}, written every checkpoint_interval entries and when the recorder
// closes (pipelock internal/recorder, checkpointLocked; v2 entries add
// "event_kind": "checkpoint"). Its signature is Ed25519, lowercase hex, over
// the ASCII text of prev_hash alone: the recorder entry hash of the entry
// before it, the chain state the checkpoint vouches for (the reference's
// VerifyCheckpoints). entry_count, first_seq and last_seq are not signed.
// The recorder signs with the key its receipt emitter signs receipts with,
// but the checkpoint names no key: it verifies when some Ed25519 key of the
// key files verifies it, and is INCOMPLETE (unknown_key) when none does, so
// a checkpoint changed after signing and one signed by a key the files do
// not list look alike, as they do to the reference, which takes the key as
// an argument. An unsigned checkpoint (sign_checkpoints off) is INCOMPLETE.
var pipelockRecorderCheckpointFormat = format{name: "pipelock-recorder-checkpoint", detect: isPipelockRecorderCheckpoint, check: checkPipelockRecorderCheckpoint,
	signs: []string{"prev_hash"}}

func isPipelockRecorderCheckpoint(doc *canon.Value) bool {
	d := doc.Get("detail")
	if str(doc, "type") != "checkpoint" || d == nil || d.Kind != canon.Object {
		return false
	}
	return d.Get("signature") != nil && d.Get("last_seq") != nil && doc.Get("prev_hash") != nil && doc.Get("seq") != nil
}

func checkPipelockRecorderCheckpoint(c *check) {
	d := c.doc.Get("detail")
	f := &c.res.Fields
	prev, okPrev := c.requireStr(c.doc, "", "prev_hash")
	ts, _ := c.requireStr(c.doc, "", "ts")
	sig, okSig := c.requireStr(d, "detail.", "signature")
	f.IssuedAt, f.ActionType, f.Signature = ts, "checkpoint", sig
	f.SessionID = str(c.doc, "session_id")
	last := integer(d, "last_seq")
	if last == nil || *last < 0 {
		c.fail(AxisStructure, ReasonBadField, "detail.last_seq must be a non-negative integer")
	}
	c.notRun(AxisIssuerBind, "a recorder checkpoint names no signer")
	if !okPrev || !okSig {
		c.skip(AxisSignature, ReasonUncheckable, "no checkpoint to check")
		return
	}
	if sig == "" {
		c.skip(AxisSignature, ReasonUncheckable, "an unsigned checkpoint (the recorder's sign_checkpoints is off)")
		return
	}
	raw, err := hex.DecodeString(sig)
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "detail.signature is not hex: "+err.Error())
		return
	}
	c.signed([]byte(prev))
	tried := 0
	for _, k := range c.v.keys.Keys() {
		if k.Public == nil || k.Alg != sigalg.Ed25519 {
			continue
		}
		tried++
		if k.Verify([]byte(prev), raw) == nil {
			c.pass(AxisIssuerKey, k.Label())
			f.KeyID, f.Alg = k.KID, string(k.Alg)
			c.keyStatus(k)
			c.pass(AxisSignature, "Ed25519 over prev_hash, the head of the recorder's chain at entry "+strconv.FormatInt(max(derefInt(last), 0), 10))
			return
		}
	}
	c.resolveFailed(errNoRecorderKey(tried))
}

func derefInt(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

type errNoRecorderKey int

func (n errNoRecorderKey) Error() string {
	return "none of the " + strconv.Itoa(int(n)) + " Ed25519 keys of the key files verifies the checkpoint (a recorder checkpoint names no key: changed after signing, or signed by a key not listed)"
}
