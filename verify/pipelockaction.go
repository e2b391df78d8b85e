package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// A pipelock ActionReceipt v1, the receipt pipelock's flight recorder writes
// (internal/receipt emitter.go): {"version": 1, "action_record": {...},
// "signature": "ed25519:<hex>", "signer_key": "<hex>"}. It is judged as the
// Go reference's VerifyChain judges it: the receipt is read with
// encoding/json into the reference's structs (pipelockaction_record.go),
// the record must pass ActionRecord.Validate, and the Ed25519 signature
// covers SHA-256 of json.Marshal(action_record). Members the structs lack
// are dropped by that decoder and so are outside the signed bytes: the
// verdict is the reference's, with a note naming them. A member that
// differs from a field's name only in case, which the decoder would read
// as that field, fails: this tool and the reference would read different
// records.
//
// The embedded signer_key is a claim, not trust: the key directory must
// list it (keys.Directory.ByPublicKey), else the receipt is INCOMPLETE
// (unknown_key) even though its signature verifies under the embedded key.
//
// Chain: chain_prev_hash is "genesis" on chain_seq 0, else the lowercase
// hex SHA-256 of json.Marshal of the predecessor receipt, compared as
// written, and chain_seq is the predecessor's plus one. The stream indexes
// each receipt by pipelockSeqLink(its hash, its chain_seq) and each link by
// pipelockSeqLink(chain_prev_hash, chain_seq-1), so a receipt whose hash
// link holds but whose chain_seq does not follow names no receipt of the
// input (chain_absent). A chain is scoped by signer_key: VerifyChain holds
// every receipt of a chain to the first one's key. The signature covers
// action_record alone; signer_key is bound by the check (the key must
// verify it), the envelope's version by nothing.
var pipelockActionFormat = format{name: "pipelock-action-v1", detect: isPipelockAction, check: checkPipelockAction, signs: []string{"action_record", "signature", "signer_key"}, chain: &chainRule{
	hash: pipelockActionChainHash,
	link: linkRule{path: []string{"action_record", "chain_prev_hash"}},
	scope: func(name string, doc *canon.Value) string {
		return scopeKey(name, str(pipelockActionReceipt(doc), "signer_key"))
	},
}}

const pipelockGenesis = "genesis"

// The flight recorder writes each receipt as the detail of an entry,
// {"v": 1, "seq": N, ..., "type": "action_receipt", "detail": {receipt},
// "prev_hash", "hash"}; the reference's ExtractReceipts takes the receipt
// out of it, as do the checks here. The entry's own hash chain is the
// recorder's, not the receipt's, and is not checked.
const pipelockRecorderEntryType = "action_receipt"

func isPipelockAction(doc *canon.Value) bool {
	return pipelockActionReceipt(doc) != nil
}

// pipelockActionReceipt returns the receipt of a bare ActionReceipt or of
// a recorder entry, nil when doc is neither.
func pipelockActionReceipt(doc *canon.Value) *canon.Value {
	if ar := doc.Get("action_record"); ar != nil && ar.Kind == canon.Object {
		return doc
	}
	if str(doc, "type") != pipelockRecorderEntryType {
		return nil
	}
	if d := doc.Get("detail"); d != nil && d.Kind == canon.Object {
		if ar := d.Get("action_record"); ar != nil && ar.Kind == canon.Object {
			return d
		}
	}
	return nil
}

func pipelockActionChainHash(doc *canon.Value) (string, error) {
	r, err := readPipelockAction(doc)
	if err != nil {
		return "", err
	}
	if pipelockCurrent(doc) {
		return pipelockSeqLink(pipelockEmittedHash(pipelockActionReceipt(doc)), r.ActionRecord.ChainSeq), nil
	}
	h, err := pipelockActionHash(r)
	if err != nil {
		return "", err
	}
	return pipelockSeqLink(h, r.ActionRecord.ChainSeq), nil
}

// readPipelockAction reads the receipt of doc as the reference does: a
// bare receipt with receipt.Unmarshal, an entry's detail as
// receiptFromEntry does, through the recorder's decoding of the entry.
func readPipelockAction(doc *canon.Value) (*goActionReceipt, error) {
	r := pipelockActionReceipt(doc)
	if r == doc {
		return readGoActionReceipt(doc)
	}
	return readGoRecorderDetail(r)
}

func checkPipelockAction(c *check) {
	doc := pipelockActionReceipt(c.doc)
	f := &c.res.Fields
	rec := doc.Get("action_record")
	f.ActionID = str(rec, "action_id")
	f.IssuedAt = str(rec, "timestamp")
	f.ActionType = str(rec, "action_type")
	f.Decision = str(rec, "verdict")
	f.Signature = str(doc, "signature")
	f.Lifecycle = pipelockLifecycle(rec)
	if doc != c.doc {
		c.res.Fingerprints.RecorderEntry = pipelockRecorderEntryHash(c.doc)
	}
	if seq := rec.Get("chain_seq"); seq != nil && seq.Kind == canon.Number {
		if n, err := strconv.ParseInt(seq.Text, 10, 64); err == nil {
			f.Step = &n
		}
	}

	dropped, folded := pipelockActionNames(doc)
	for _, m := range folded {
		c.fail(AxisStructure, ReasonBadField, "member "+quoteShort(m)+" differs from a field of the Go reference only in case, and its decoder would read it as that field")
	}
	r, err := readPipelockAction(c.doc)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "the Go reference cannot read the receipt: "+err.Error())
		c.fail(AxisSignature, ReasonMalformed, "no signable form: "+err.Error())
		return
	}
	ar := &r.ActionRecord
	if r.Version != 1 {
		c.fail(AxisStructure, ReasonBadField, "version must be 1 (receipt "+strconv.Itoa(r.Version)+")")
	}
	pipelockValidate(c, ar)
	current := pipelockCurrent(c.doc)
	h, err := pipelockActionHash(r)
	if current {
		h, err = pipelockEmittedHash(doc), nil
	}
	if err == nil {
		c.res.Fingerprints.ChainHash = pipelockSeqLink(h, ar.ChainSeq)
		if !c.has(AxisStructure) {
			// The chain hashes this tool shows are not the ones pipelock
			// writes: say which is which.
			c.pass(AxisStructure, "receipt hash "+h+"; the chain hash and previous hash shown are SHA-256 of a receipt hash, \"/\" and its chain_seq")
		}
	}
	pipelockActionLink(c, ar, rec)

	msg, err := json.Marshal(ar)
	if current {
		exact, ok := pipelockExactRecord(c.raw, doc != c.doc)
		if !ok {
			c.fail(AxisSignature, ReasonMalformed, "no action_record bytes to check the signature over")
			return
		}
		msg, err = exact, nil
	}
	if err != nil {
		c.fail(AxisSignature, ReasonMalformed, "the Go reference cannot marshal the record: "+err.Error())
		return
	}
	sigHex, ok := strings.CutPrefix(r.Signature, pipelockSigPrefix)
	if !ok || sigHex == "" {
		c.fail(AxisSignature, ReasonBadEncoding, "signature must be "+pipelockSigPrefix+" + hex")
		return
	}
	sig, err := hex.DecodeString(sigHex)
	if err != nil || len(sig) != 64 {
		c.fail(AxisSignature, ReasonBadEncoding, "signature is not 64 bytes of hex")
		return
	}
	raw, err := hex.DecodeString(r.SignerKey)
	if err != nil || len(raw) != 32 {
		c.fail(AxisStructure, ReasonBadField, "signer_key must be a 32-byte Ed25519 key in hex")
		c.skip(AxisSignature, ReasonUncheckable, "no usable signer_key")
		return
	}
	key, kerr := c.v.keys.ByPublicKey(sigalg.Ed25519, raw)
	if kerr != nil {
		c.resolveFailed(kerr)
		// The embedded key still says whether the record is what its
		// signer signed: a tampered receipt fails whoever signed it.
		pub, err := sigalg.NewPublicKey(sigalg.Ed25519, raw)
		if err != nil {
			c.skip(AxisSignature, ReasonUncheckable, "signer_key: "+err.Error())
			return
		}
		key = &keys.Key{KID: "embedded signer_key", Alg: sigalg.Ed25519, Public: pub}
	} else {
		c.pass(AxisIssuerKey, key.Label())
		f.KeyID = key.KID
		c.keyStatus(key)
	}
	c.notRun(AxisIssuerBind, "pipelock names no issuer besides signer_key")
	sum := sha256.Sum256(msg)
	c.verifySignature(key, "", sum[:], sig)
	c.signed(msg)
	if kerr != nil {
		c.noteSignature("under the embedded signer_key, which the key directory does not list")
	}
	if current {
		c.noteSignature("over SHA-256 of the action_record bytes exactly as written, as pipelock's current verifier checks a record with session-lifecycle members")
	} else {
		c.noteSignature("over SHA-256 of the record as Go's json.Marshal writes it")
	}
	if doc != c.doc {
		c.noteSignature("the receipt of a flight recorder entry (its detail); the entry's own hash chain is not checked")
	}
	if len(dropped) > 0 && !current {
		c.noteSignature("members the Go reference's structs lack are outside the signed bytes: " + strings.Join(dropped, ", "))
	}
	if hasLoneSurrogate(doc) {
		c.noteSignature("each lone surrogate read as U+FFFD, as Go's decoder reads it, and verified so")
	}
	if goEscaped(msg) {
		c.noteSignature(`signed bytes in the Go reference's form: & < > U+2028 U+2029 escaped as \u0026 \u003c \u003e \u2028 \u2029`)
	}
}

// pipelockValidate is internal/receipt ActionRecord.Validate.
func pipelockValidate(c *check, ar *goActionRecord) {
	if ar.Version != 1 {
		c.fail(AxisStructure, ReasonBadField, "action_record.version must be 1")
	}
	for _, req := range []struct{ name, value string }{
		{"action_id", ar.ActionID}, {"target", ar.Target}, {"verdict", ar.Verdict}, {"transport", ar.Transport},
	} {
		if req.value == "" {
			c.fail(AxisStructure, ReasonMissingField, "action_record."+req.name+" is required")
		}
	}
	if !slices.Contains(pipelockActionTypes, ar.ActionType) {
		c.fail(AxisStructure, ReasonBadField, "invalid action_record.action_type "+quoteShort(ar.ActionType))
	}
	if ar.Timestamp.IsZero() {
		c.fail(AxisStructure, ReasonMissingField, "action_record.timestamp is required")
	}
}

// pipelockActionLink reads the record's chain position: "genesis" is
// chain_seq 0 and chain_seq 0 is "genesis" (VerifyChain starts every chain
// there), or a "g1:" hash bound to the record's own signed session_open,
// or a key_transition, which starts a new key's chain; any other link
// names pipelockSeqLink(chain_prev_hash, seq-1).
func pipelockActionLink(c *check, ar *goActionRecord, rec *canon.Value) {
	genesis := ar.ChainPrevHash == pipelockGenesis
	g1 := strings.HasPrefix(ar.ChainPrevHash, pipelockG1Prefix)
	kt := rec.Get("key_transition")
	transition := kt != nil && kt.Kind == canon.Object
	switch {
	case g1:
		if bad := pipelockG1Link(rec, ar.ChainPrevHash, ar.ChainSeq); bad != "" {
			c.fail(AxisChain, ReasonChainMismatch, bad)
			return
		}
		c.link = chainLink{present: true, genesis: true}
	case transition && ar.ChainSeq != 0:
		c.fail(AxisChain, ReasonChainMismatch, "a key_transition is a segment's first receipt, but chain_seq is "+strconv.FormatUint(ar.ChainSeq, 10))
	case transition:
		// The marker is signed by the new key: continuity, not trust. The
		// new key's chain starts here, scoped by its signer_key.
		c.link = chainLink{present: true, genesis: true}
	case genesis && ar.ChainSeq != 0:
		c.fail(AxisChain, ReasonChainMismatch, "chain_prev_hash is \"genesis\" but chain_seq is "+strconv.FormatUint(ar.ChainSeq, 10)+": a chain starts at 0")
	case !genesis && ar.ChainSeq == 0:
		c.fail(AxisChain, ReasonChainMismatch, "chain_seq 0 is a chain's first receipt, whose chain_prev_hash must be \"genesis\" or a g1 session_open hash")
	case genesis:
		if pipelockSessionOpen(rec) != nil {
			c.fail(AxisChain, ReasonChainMismatch, "a session_open on a \"genesis\" chain_prev_hash must use its g1 hash")
			return
		}
		c.link = chainLink{present: true, genesis: true}
	default:
		c.link = chainLink{present: true, prev: pipelockSeqLink(ar.ChainPrevHash, ar.ChainSeq-1)}
	}
}

// pipelockActionNames lists the members of the receipt, its record and
// their nested objects that the Go structs lack (dropped by the decoder)
// and those that match a field only when case is ignored (folded), as
// "action_record.name".
func pipelockActionNames(doc *canon.Value) (dropped, folded []string) {
	walk := func(where string, obj *canon.Value, names []string) {
		if obj == nil || obj.Kind != canon.Object {
			return
		}
		for _, m := range obj.Members {
			switch {
			case slices.Contains(names, m.Name):
			case slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, m.Name) }):
				folded = append(folded, where+m.Name)
			default:
				dropped = append(dropped, quoteShort(where+m.Name))
			}
		}
	}
	walk("", doc, pipelockReceiptNames)
	rec := doc.Get("action_record")
	walk("action_record.", rec, pipelockRecordNames)
	walk("action_record.redaction.", rec.Get("redaction"), pipelockRedactionNames)
	if src := rec.Get("recent_taint_sources"); src != nil && src.Kind == canon.Array {
		for i := range src.Items {
			walk("action_record.recent_taint_sources["+strconv.Itoa(i)+"].", &src.Items[i], pipelockTaintNames)
		}
	}
	return dropped, folded
}

var (
	pipelockReceiptNames   = goJSONNames(reflect.TypeFor[goActionReceipt]())
	pipelockRecordNames    = goJSONNames(reflect.TypeFor[goActionRecord]())
	pipelockRedactionNames = goJSONNames(reflect.TypeFor[goRedaction]())
	pipelockTaintNames     = goJSONNames(reflect.TypeFor[goTaintSourceRef]())
)

// goEscaped reports whether Go's encoder escaped, in msg, a character that
// RFC 8785 and most encoders write raw.
func goEscaped(msg []byte) bool {
	s := string(msg)
	return slices.ContainsFunc([]string{`\u0026`, `\u003c`, `\u003e`, `\u2028`, `\u2029`}, func(e string) bool { return strings.Contains(s, e) })
}

// goJSONNames lists the JSON names of a struct's fields, from their tags.
func goJSONNames(t reflect.Type) []string {
	names := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}
