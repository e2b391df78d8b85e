package verify

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/receiptverify/verify/verify/canon"
)

// pipelock after its session-lifecycle records (July 2026) no longer signs
// a struct it read back: VerifyV1BytesWithKey (internal/receipt
// bytes_verify.go) checks the signature over SHA-256 of the action_record
// bytes exactly as the receipt carries them, which are json.Marshal of its
// current structs, and ReceiptHash, the chain link, is SHA-256 of the
// receipt written the same way. Those records carry members the April
// structs of pipelockaction_record.go lack (run_nonce, session_control,
// decision_phase, layer, intent, ...). Such a receipt is checked here over
// its exact bytes; one whose members all fit the April structs keeps the
// reference check of pipelockaction.go, which gives the same bytes for a
// receipt as pipelock writes it.

// pipelockG1Prefix marks a chain_prev_hash that binds a chain's first
// receipt to its signed session_open (genesisSessionOpenPrefix).
const pipelockG1Prefix = "g1:"

// pipelockSessionOpenLabel is sessionOpenGenesisLabel, the domain label of
// the g1 preimage.
const pipelockSessionOpenLabel = "pipelock.receipt.session_open.v1"

// pipelockCurrentMembers are action_record members only the current
// structs have; a record carrying one is checked over its exact bytes.
var pipelockCurrentMembers = []string{"run_nonce", "session_control", "decision_phase", "key_transition"}

// pipelockCurrent reports whether the receipt's record is of the current
// structs, which only the exact-byte check can sign.
func pipelockCurrent(doc *canon.Value) bool {
	rec := pipelockActionReceipt(doc).Get("action_record")
	for _, m := range rec.Members {
		if slices.Contains(pipelockCurrentMembers, m.Name) {
			return true
		}
	}
	return false
}

// pipelockExactRecord returns the action_record bytes of raw as written:
// the bare receipt's, or a recorder entry's detail's.
func pipelockExactRecord(raw []byte, entry bool) ([]byte, bool) {
	if entry {
		var e struct {
			Detail json.RawMessage `json:"detail"`
		}
		if json.Unmarshal(raw, &e) != nil || len(e.Detail) == 0 {
			return nil, false
		}
		raw = e.Detail
	}
	var r struct {
		ActionRecord json.RawMessage `json:"action_record"`
	}
	if json.Unmarshal(raw, &r) != nil || len(r.ActionRecord) == 0 {
		return nil, false
	}
	return r.ActionRecord, true
}

// pipelockEmittedHash is ReceiptHash of a current receipt: SHA-256 of the
// receipt as Go's encoder writes it, members in the order given.
func pipelockEmittedHash(receipt *canon.Value) string {
	sum := sha256.Sum256(appendGoEmitted(nil, receipt))
	return hex.EncodeToString(sum[:])
}

// pipelockG1 is ComputeSessionOpenGenesis: "g1:" + hex SHA-256 of the
// length-framed fields of the signed session_open, in their frozen order.
func pipelockG1(open *canon.Value) string {
	h := sha256.New()
	frame := func(b []byte) {
		var l [8]byte
		binary.BigEndian.PutUint64(l[:], uint64(len(b)))
		h.Write(l[:])
		h.Write(b)
	}
	frame([]byte(pipelockSessionOpenLabel))
	for _, n := range []string{"run_nonce", "open_nonce", "recorder_session", "policy_hash", "signer_key_epoch"} {
		frame([]byte(str(open, n)))
	}
	var hb [8]byte
	if v := open.Get("heartbeat_seconds"); v != nil && v.Kind == canon.Number {
		if n, err := strconv.ParseInt(v.Text, 10, 64); err == nil && n > 0 {
			binary.BigEndian.PutUint64(hb[:], uint64(n))
		}
	}
	frame(hb[:])
	for _, n := range []string{"genesis_anchor_head", "genesis_anchor_log", "posture_capsule_sha256", "containment_nonce", "contained_uid"} {
		frame([]byte(str(open, n)))
	}
	return pipelockG1Prefix + hex.EncodeToString(h.Sum(nil))
}

// pipelockSessionOpen returns the session_open payload of a record, nil
// when it carries none.
func pipelockSessionOpen(rec *canon.Value) *canon.Value {
	ctrl := rec.Get("session_control")
	if str(ctrl, "kind") != "session_open" {
		return nil
	}
	if o := ctrl.Get("open"); o != nil && o.Kind == canon.Object {
		return o
	}
	return nil
}

// pipelockG1Link judges a g1 chain_prev_hash: the first receipt of a
// chain, bound to its own signed session_open (validateBoundGenesisOpen).
// It returns "" when the binding holds, else what is wrong.
func pipelockG1Link(rec *canon.Value, prev string, seq uint64) string {
	open := pipelockSessionOpen(rec)
	switch {
	case open == nil:
		return "a g1 chain_prev_hash needs a session_open in session_control"
	case seq != 0:
		return "a g1 chain_prev_hash is a chain's first receipt, but chain_seq is " + strconv.FormatUint(seq, 10)
	case pipelockG1(open) != prev:
		return "chain_prev_hash is not the g1 hash of the receipt's session_open"
	case str(open, "genesis_hash") != prev:
		return "session_open genesis_hash differs from chain_prev_hash"
	case str(open, "prior_chain_head") != "":
		return "a chain's first session_open carries a prior chain head"
	}
	return ""
}

// appendGoEmitted writes v compactly, members in the order given, strings
// as Go's json.Marshal quotes them: what pipelock's emitter writes.
func appendGoEmitted(buf []byte, v *canon.Value) []byte {
	return appendCompact(buf, v, appendGoQuoted)
}

// appendGoQuoted quotes s as encoding/json does with HTML escaping on;
// invalid UTF-8 (a lone surrogate) becomes U+FFFD, as Go's decoder read it.
func appendGoQuoted(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c == '\t':
				buf = append(buf, '\\', 't')
			case c == '\b':
				buf = append(buf, '\\', 'b')
			case c == '\f':
				buf = append(buf, '\\', 'f')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				buf = append(buf, '\\', 'u', '0', '0', goHexDigits[c>>4], goHexDigits[c&0xF])
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			buf = append(buf, `\ufffd`...)
			// A WTF-8 surrogate is three bytes that Go read as one U+FFFD.
			if c == 0xED && i+2 < len(s) {
				n = 3
			}
		case r == '\u2028' || r == '\u2029':
			buf = append(buf, `\u202`...)
			buf = append(buf, goHexDigits[r&0xF])
		default:
			buf = append(buf, s[i:i+n]...)
		}
		i += n
	}
	return append(buf, '"')
}

// pipelockLifecycleKind is the record's session_control kind, "" for an
// action.
func pipelockLifecycleKind(rec *canon.Value) string {
	return strings.TrimSpace(str(rec.Get("session_control"), "kind"))
}

// pipelockLifecycle reads a record's session_control: its kind and the
// claims completeness needs. nil for an ordinary action or a kind pipelock
// does not write.
func pipelockLifecycle(rec *canon.Value) *Lifecycle {
	ctrl := rec.Get("session_control")
	num := func(obj *canon.Value, name string) int64 {
		if v := obj.Get(name); v != nil && v.Kind == canon.Number {
			if n, err := strconv.ParseInt(v.Text, 10, 64); err == nil && n > 0 {
				return n
			}
		}
		return 0
	}
	switch pipelockLifecycleKind(rec) {
	case LifecycleOpen:
		return &Lifecycle{Kind: LifecycleOpen, HeartbeatSeconds: num(ctrl.Get("open"), "heartbeat_seconds")}
	case LifecycleHeartbeat:
		return &Lifecycle{Kind: LifecycleHeartbeat}
	case LifecycleClose:
		c := ctrl.Get("close")
		return &Lifecycle{Kind: LifecycleClose, FinalSeq: num(c, "final_seq"), ReceiptCount: num(c, "receipt_count")}
	}
	return nil
}
