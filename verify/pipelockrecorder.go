package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

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
//
// A verified checkpoint is completeness evidence (Fields.Lifecycle, kind
// checkpoint, Head the prev_hash it signs): the entry it names must be
// held. Each receipt read from a recorder entry, and each checkpoint,
// carries its entry's hash (Fingerprints.RecorderEntry), so that package
// completeness finds the receipt a checkpoint names in the chain of the
// key that signed it (IssuerID, the key as hex, pipelock's signer_key).
var pipelockRecorderCheckpointFormat = format{name: PipelockRecorderCheckpoint, detect: isPipelockRecorderCheckpoint, check: checkPipelockRecorderCheckpoint,
	signs: []string{"prev_hash"}}

// PipelockRecorderCheckpoint is the Result.Format of a pipelock flight
// recorder checkpoint.
const PipelockRecorderCheckpoint = "pipelock-recorder-checkpoint"

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
	c.res.Fingerprints.RecorderEntry = pipelockRecorderEntryHash(c.doc)
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
			f.IssuerID = hex.EncodeToString(k.Public.Bytes())
			f.Lifecycle = &Lifecycle{Kind: LifecycleCheckpoint, Head: prev}
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

// pipelockRecorderEntryHash is the recorder's ComputeHash of an entry: hex
// SHA-256 of its fields joined by NUL bytes, v, seq, ts (RFC 3339 with
// nanoseconds, UTC), session_id, trace_id, type, event_kind (version 2
// only), transport, summary, the detail as the recorder wrote it, raw_ref
// and prev_hash. The detail is hashed as written, compact with Go's
// escaping, members in their order (the emitter hands the recorder the
// receipt's bytes); "" when doc is no entry of version 1 or 2.
func pipelockRecorderEntryHash(doc *canon.Value) string {
	v, seq := integer(doc, "v"), integer(doc, "seq")
	d := doc.Get("detail")
	if v == nil || (*v != 1 && *v != 2) || seq == nil || *seq < 0 || d == nil {
		return ""
	}
	ts, err := time.Parse(time.RFC3339Nano, str(doc, "ts"))
	if err != nil {
		return ""
	}
	h := sha256.New()
	fields := []string{strconv.FormatInt(*v, 10), strconv.FormatInt(*seq, 10), ts.UTC().Format(time.RFC3339Nano),
		str(doc, "session_id"), str(doc, "trace_id"), str(doc, "type")}
	if *v == 2 {
		fields = append(fields, str(doc, "event_kind"))
	}
	fields = append(fields, str(doc, "transport"), str(doc, "summary"))
	for _, s := range fields {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	h.Write(appendGoEmitted(nil, d))
	for _, s := range []string{str(doc, "raw_ref"), str(doc, "prev_hash")} {
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// PipelockChainScope is the chain scope (Result.ScopeKey) of the
// pipelock-action-v1 chain signed by signerKey (hex), the chain a recorder
// checkpoint verified under that key names.
func PipelockChainScope(signerKey string) string {
	return scopeKey(pipelockActionFormat.name, signerKey)
}
