package analytics

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/jsonenc"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/reason"
)

// The values of receipts.tool_match, from the tool_fingerprint axis.
const (
	toolMatch   = "match"   // PASS: the fingerprint is an expected server's schema for the tool
	toolDrift   = "drift"   // FAIL tool_drift (or a malformed fingerprint): a known tool, another schema
	toolUnknown = "unknown" // FAIL tool_unknown: no expected server exposes the tool name
	toolAbsent  = "absent"  // NOT_RUN tool_fingerprint_absent: the receipt carries no tool fingerprint
	toolNotRun  = "not_run" // NOT_RUN otherwise: no expected schemas given, or no such axis
)

// toolMatchOf maps the tool_fingerprint axis to receipts.tool_match.
func toolMatchOf(res *verify.Result) string {
	ax, ok := res.Axes.Get(verify.AxisToolFingerprint)
	if !ok {
		return toolNotRun
	}
	switch ax.Status {
	case verify.StatusPass:
		return toolMatch
	case verify.StatusFail:
		if ax.Reason == verify.ReasonToolUnknown {
			return toolUnknown
		}
		return toolDrift
	case verify.StatusNotRun:
		if ax.Reason == verify.ReasonToolAbsent {
			return toolAbsent
		}
	}
	return toolNotRun
}

// appendReceiptRow appends one receipts row as a JSON object and a newline:
// the spool format read back by read_ndjson with receiptColumns. Empty
// optional fields are left out and so become NULL. file_sha256 and source
// are the same for every row of a file and are not written; raw is the
// receipt exactly as read, offset where it starts in its file's content.
//
// Where the line is in its file (byte_offset, byte_length, line_sha256) is
// always written, but for an offset of -1 (not known); the line itself
// (raw) only when withRaw: see RawPolicy.
// deliveryFlags are what the stream said of a record beside its result:
// kept in the spool (not in receipts) so that a re-delivered line, left
// out at insert, is left out of these counts too.
type deliveryFlags struct {
	duplicate, chainOutside bool
}

func appendReceiptRow(b []byte, res *verify.Result, raw []byte, offset int64, withRaw bool, flags deliveryFlags) []byte {
	return appendReceiptRowAt(b, res, int64(res.Line), lineOf(raw), offset, withRaw, flags)
}

// keptLine is what a row needs of its line: its length and SHA-256, and
// its bytes when the row may store them (nil when they were not kept:
// fillFlagged reads them again).
type keptLine struct {
	length int64
	sum    [sha256.Size]byte
	raw    []byte
	has    bool // raw holds the line
}

// lineOf is a line read whole.
func lineOf(raw []byte) keptLine {
	return keptLine{length: int64(len(raw)), sum: sha256.Sum256(raw), raw: raw, has: true}
}

// keepLine is the stream's Options.Keep for a load that does not read its
// inputs again: each line's SHA-256 and length, and the line itself when
// it did not PASS (a rejects row or a receipt stored with its line). A
// receipt that PASSes here and fails a chain or nonce judgment has its
// line read again by offset (fillFlagged).
func keepLine(dst, raw []byte, sum [sha256.Size]byte, res *verify.Result) []byte {
	dst = append(dst, sum[:]...)
	dst = binary.AppendUvarint(dst, uint64(len(raw)))
	if res.Verdict != verify.Pass {
		dst = append(dst, raw...)
	}
	return dst
}

// unknownLine is a line whose bytes are not at hand (a ReceiptTable's):
// its length, SHA-256 and bytes are left out of the row.
var unknownLine = keptLine{length: -1}

// parseKept reads what keepLine kept.
func parseKept(k []byte) keptLine {
	var l keptLine
	if len(k) < sha256.Size {
		return l
	}
	copy(l.sum[:], k)
	n, w := binary.Uvarint(k[sha256.Size:])
	if w <= 0 {
		return l
	}
	l.length = int64(n)
	if rest := k[sha256.Size+w:]; len(rest) > 0 {
		l.raw, l.has = rest, true
	}
	return l
}

// appendReceiptRowAt is appendReceiptRow with the line number given
// apart from the result's, and the line as kept.
func appendReceiptRowAt(b []byte, res *verify.Result, line int64, raw keptLine, offset int64, withRaw bool, flags deliveryFlags) []byte {
	f := &res.Fields
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, line, 10)
	if offset >= 0 { // -1: not known (a row stored before offsets were)
		b = append(b, `,"byte_offset":`...)
		b = strconv.AppendInt(b, offset, 10)
	}
	if raw.length >= 0 { // -1: the line is not known (unknownLine)
		b = append(b, `,"byte_length":`...)
		b = strconv.AppendInt(b, raw.length, 10)
		b = append(b, `,"line_sha256":"`...)
		b = hex.AppendEncode(b, raw.sum[:])
		b = append(b, '"')
	}
	b = appendField(b, "format", res.Format)
	b = appendField(b, "verdict", string(res.Verdict))
	b = append(b, `,"reasons":[`...)
	for i, r := range res.Reasons {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, string(r))
	}
	b = append(b, ']')
	b = appendField(b, "action_id", f.ActionID)
	b = appendField(b, "agent_id", f.AgentID)
	b = appendField(b, "issuer_id", f.IssuerID)
	b = appendField(b, "org_id", f.OrgID)
	b = appendField(b, "session_id", f.SessionID)
	if f.Step != nil {
		b = append(b, `,"step":`...)
		b = strconv.AppendInt(b, *f.Step, 10)
	}
	b = appendField(b, "action_type", f.ActionType)
	b = appendField(b, "tool_name", f.ToolName)
	b = appendField(b, "tool_fingerprint", f.ToolFingerprint)
	b = appendField(b, "tool_match", toolMatchOf(res))
	if len(f.ToolServers) > 0 {
		b = append(b, `,"tool_servers":[`...)
		for i, s := range f.ToolServers {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	}
	b = appendField(b, "nonce", f.Nonce)
	b = appendField(b, "call_signature", res.Fingerprints.CallSignature)
	b = appendField(b, "signature_sha256", signatureSHA256(f))
	b = appendField(b, "previous_hash", f.PreviousHash)
	b = appendField(b, "chain_hash", res.Fingerprints.ChainHash)
	if res.Fingerprints.ChainHash != "" {
		b = appendField(b, "chain_scope", streamrun.ScopeDigest(res.ScopeKey()))
	}
	b = appendField(b, "decision", f.Decision)
	if t, ok := res.IssuedTime(); ok {
		b = append(b, `,"issued_us":`...)
		b = strconv.AppendInt(b, t.UnixMicro(), 10)
	}
	b = appendField(b, "nonce_key", streamrun.NonceDigest(res.NonceKey()))
	if !res.Evidence() {
		b = append(b, `,"claim":true`...)
	}
	if lc := f.Lifecycle; lc != nil {
		b = appendLifecycle(b, lc)
		switch {
		case res.Format == verify.PipelockRecorderCheckpoint && f.IssuerID != "":
			// A recorder checkpoint names its head by entry hash, in the
			// chain of the key that signed it; it is in no chain itself.
			b = appendField(b, "lifecycle_scope", streamrun.ScopeDigest(verify.PipelockChainScope(f.IssuerID)))
		case res.Fingerprints.ChainHash != "":
			b = appendField(b, "lifecycle_scope", streamrun.ScopeDigest(res.ScopeKey()))
		}
	}
	b = appendField(b, "recorder_entry", res.Fingerprints.RecorderEntry)
	if flags.duplicate {
		b = append(b, `,"duplicate":true`...)
	}
	if flags.chainOutside {
		b = append(b, `,"chain_outside":true`...)
	}
	if withRaw && raw.has {
		b = append(b, `,"raw":"`...)
		b = jsonenc.AppendChars(b, raw.raw, false)
		b = append(b, '"')
	}
	return append(b, "}\n"...)
}

// signatureSHA256 is the hex SHA-256 of the signature's text as carried:
// the verifier's, or computed when it was asked not to.
func signatureSHA256(f *verify.Fields) string {
	if f.SignatureSHA256 != "" || f.Signature == "" {
		return f.SignatureSHA256
	}
	sum := sha256.Sum256([]byte(f.Signature))
	return hex.EncodeToString(sum[:])
}

// receiptColumns is the read_ndjson column list of the receipts spool.
const receiptColumns = `{line: 'BIGINT', byte_offset: 'BIGINT', byte_length: 'BIGINT', line_sha256: 'VARCHAR', format: 'VARCHAR', verdict: 'VARCHAR', reasons: 'VARCHAR[]',
	action_id: 'VARCHAR', agent_id: 'VARCHAR', issuer_id: 'VARCHAR', org_id: 'VARCHAR',
	session_id: 'VARCHAR', step: 'BIGINT', action_type: 'VARCHAR', tool_name: 'VARCHAR',
	tool_fingerprint: 'VARCHAR', tool_match: 'VARCHAR', tool_servers: 'VARCHAR[]', nonce: 'VARCHAR',
	call_signature: 'VARCHAR', signature_sha256: 'VARCHAR', previous_hash: 'VARCHAR', chain_hash: 'VARCHAR',
	chain_scope: 'VARCHAR', decision: 'VARCHAR', issued_us: 'BIGINT', nonce_key: 'VARCHAR', raw: 'VARCHAR',
	duplicate: 'BOOLEAN', chain_outside: 'BOOLEAN', lifecycle: 'VARCHAR', lifecycle_seq: 'BIGINT',
	lifecycle_count: 'BIGINT', heartbeat_seconds: 'BIGINT', lifecycle_head: 'VARCHAR', lifecycle_scope: 'VARCHAR', recorder_entry: 'VARCHAR', claim: 'BOOLEAN',
	consistency_size: 'BIGINT', consistency_root: 'VARCHAR'}`

// receiptInsert turns spool rows into receipts rows, columns named so that
// a database whose later columns were added by ALTER TABLE takes them
// alike; $1 is file_sha256, $2 source, $3 the UTC day of the load
// ('YYYY-MM-DD'), $4 trust_sha256, and the spool's read_ndjson call
// follows. issued_at is a TIMESTAMP (no time zone) made from UTC
// microseconds, so day, its date, does not depend on any session setting.
// A receipt without a readable issued_at (UndoLog rows and Overturn
// entries carry none) gets the day of its load, so that some daily report
// covers it.
const receiptInsert = `INSERT INTO receipts (file_sha256, source, line, byte_offset, byte_length, line_sha256,
	format, verdict, reasons, action_id, agent_id,
	issuer_id, org_id, session_id, step, action_type, tool_name, tool_fingerprint, tool_match,
	tool_servers, nonce, call_signature, signature_sha256, previous_hash, chain_hash, chain_scope, decision,
	issued_at, day, raw, nonce_key, trust_sha256, lifecycle, lifecycle_seq, lifecycle_count, heartbeat_seconds, lifecycle_head,
	lifecycle_scope, recorder_entry, claim, consistency_size, consistency_root)
	SELECT $1, $2, line, byte_offset, byte_length, line_sha256, format, verdict, reasons, action_id, agent_id,
	issuer_id, org_id, session_id, step, action_type, tool_name, tool_fingerprint, tool_match,
	tool_servers, nonce, call_signature, signature_sha256, previous_hash, chain_hash, chain_scope, decision,
	make_timestamp(issued_us), COALESCE(CAST(make_timestamp(issued_us) AS DATE), CAST($3 AS DATE)), raw,
	nonce_key, $4, lifecycle, lifecycle_seq, lifecycle_count, heartbeat_seconds, lifecycle_head,
	lifecycle_scope, recorder_entry, COALESCE(claim, FALSE), consistency_size, consistency_root FROM `

// A line stored already from another file is a re-delivery: a log
// re-sent inside another file (an incoming directory that delivers a
// batch again) is recognised by its lines' line_sha256, counted, not
// stored twice, and not judged replays of itself. The file's own stored
// content (own: the file_sha256 being loaded and those of the content it
// extends) does not count, so that a log loaded as it grows judges a line
// it repeats as the log loaded whole does: a replay. The three follow a
// read_ndjson call over a receipts spool.

// notRedelivered leaves out the re-delivered rows (after receiptInsert).
func notRedelivered(own []string) string { return " AS s WHERE NOT EXISTS " + storedElsewhere(own) }

// redeliveredRows keeps only the re-delivered rows.
func redeliveredRows(own []string) string { return " AS s WHERE EXISTS " + storedElsewhere(own) }

// redeliveredDays joins the re-delivered rows to the stored receipts they
// are, r.
func redeliveredDays(own []string) string {
	return " AS s JOIN receipts r ON r.line_sha256 = s.line_sha256 AND r.file_sha256 NOT IN (" + sqltext.Strings(own) + ")"
}

func storedElsewhere(own []string) string {
	return "(SELECT 1 FROM receipts r WHERE r.line_sha256 = s.line_sha256 AND r.file_sha256 NOT IN (" + sqltext.Strings(own) + "))"
}

// appendRejectRow appends one rejects row (see appendReceiptRow). raw is
// left out (NULL) when the line was too long to keep or is not valid UTF-8,
// which a VARCHAR cannot hold exactly.
func appendRejectRow(b []byte, res *verify.Result, raw []byte) []byte {
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, int64(res.Line), 10)
	msg := res.Error
	if msg == "" {
		msg = reason.Join(res.Reasons)
	}
	b = append(b, `,"error":"`...)
	b = jsonenc.AppendChars(b, strings.ToValidUTF8(msg, "\uFFFD"), false)
	b = append(b, '"')
	if raw != nil && utf8.Valid(raw) && bytes.IndexByte(raw, 0) < 0 {
		b = append(b, `,"raw":"`...)
		b = jsonenc.AppendChars(b, raw, false)
		b = append(b, '"')
	}
	return append(b, "}\n"...)
}

const rejectColumns = `{line: 'BIGINT', error: 'VARCHAR', raw: 'VARCHAR'}`

// rejectInsert is receiptInsert's counterpart: $1 file_sha256, $2 source.
const rejectInsert = `INSERT INTO rejects (file_sha256, source, line, error, raw) SELECT $1, $2, line, error, raw FROM `

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = jsonenc.AppendChars(b, s, false)
	return append(b, '"')
}

// appendField appends ,"name":"value" unless value is empty.
func appendField(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":"`...)
	b = jsonenc.AppendChars(b, value, false)
	return append(b, '"')
}

// appendLifecycle writes a lifecycle record's columns: its kind, the
// sequence number and count it claims, the heartbeat interval it declares
// and the head it names.
func appendLifecycle(b []byte, lc *verify.Lifecycle) []byte {
	b = appendField(b, "lifecycle", lc.Kind)
	for _, n := range []struct {
		name string
		v    int64
		ok   bool
	}{
		{"lifecycle_seq", lc.FinalSeq, lc.FinalSeq != 0 || lc.Kind == verify.LifecycleCheckpoint},
		{"lifecycle_count", lc.ReceiptCount, lc.ReceiptCount > 0},
		{"heartbeat_seconds", lc.HeartbeatSeconds, lc.HeartbeatSeconds > 0},
		{"consistency_size", lc.ConsistencySize, lc.ConsistencySize > 0},
	} {
		if n.ok {
			b = append(b, `,"`...)
			b = append(b, n.name...)
			b = append(b, `":`...)
			b = strconv.AppendInt(b, n.v, 10)
		}
	}
	b = appendField(b, "consistency_root", lc.ConsistencyRoot)
	return appendField(b, "lifecycle_head", lc.Head)
}
