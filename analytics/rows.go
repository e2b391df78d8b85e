package analytics

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/receiptverify/verify/internal/jsonenc"
	"github.com/receiptverify/verify/verify"
)

// The values of receipts.tool_match, from the tool_fingerprint axis.
const (
	ToolMatch   = "match"   // PASS: the fingerprint is an expected server's schema for the tool
	ToolDrift   = "drift"   // FAIL tool_drift (or a malformed fingerprint): a known tool, another schema
	ToolUnknown = "unknown" // FAIL tool_unknown: no expected server exposes the tool name
	ToolAbsent  = "absent"  // NOT_RUN tool_fingerprint_absent: the receipt carries no tool fingerprint
	ToolNotRun  = "not_run" // NOT_RUN otherwise: no expected schemas given, or no such axis
)

// toolMatch maps the tool_fingerprint axis to receipts.tool_match.
func toolMatch(res *verify.Result) string {
	ax, ok := res.Axes.Get(verify.AxisToolFingerprint)
	if !ok {
		return ToolNotRun
	}
	switch ax.Status {
	case verify.StatusPass:
		return ToolMatch
	case verify.StatusFail:
		if ax.Reason == verify.ReasonToolUnknown {
			return ToolUnknown
		}
		return ToolDrift
	case verify.StatusNotRun:
		if ax.Reason == verify.ReasonToolAbsent {
			return ToolAbsent
		}
	}
	return ToolNotRun
}

// parseIssuedAt reads issued_at as the verifier does: RFC 3339 with any
// fraction, or Python's isoformat without an offset, which means UTC. It
// returns microseconds since the Unix epoch (TIMESTAMP precision).
func parseIssuedAt(s string) (micros int64, ok bool) {
	if s == "" {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if strings.ContainsAny(s[min(len(s), 10):], "Z+-") {
			return 0, false
		}
		if t, err = time.Parse("2006-01-02T15:04:05.999999999", s); err != nil {
			return 0, false
		}
	}
	return t.UTC().UnixMicro(), true
}

// appendReceiptRow appends one receipts row as a JSON object and a newline:
// the spool format read back by read_ndjson with receiptColumns. Empty
// optional fields are left out and so become NULL. file_sha256 and source
// are the same for every row of a file and are not written.
func appendReceiptRow(b []byte, res *verify.Result) []byte {
	f := &res.Fields
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, int64(res.Line), 10)
	b = appendField(b, "format", res.Format)
	b = appendField(b, "verdict", string(res.Verdict))
	b = append(b, `,"reasons":"`...)
	for i, r := range res.Reasons {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendChars(b, string(r), false)
	}
	b = append(b, '"')
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
	b = appendField(b, "tool_match", toolMatch(res))
	if len(f.ToolServers) > 0 {
		b = append(b, `,"tool_servers":"`...)
		for i, s := range f.ToolServers {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendChars(b, s, false)
		}
		b = append(b, '"')
	}
	b = appendField(b, "nonce", f.Nonce)
	b = appendField(b, "call_signature", res.Fingerprints.CallSignature)
	b = appendField(b, "signature", f.Signature)
	b = appendField(b, "previous_hash", f.PreviousHash)
	b = appendField(b, "chain_hash", res.Fingerprints.ChainHash)
	b = appendField(b, "decision", f.Decision)
	if us, ok := parseIssuedAt(f.IssuedAt); ok {
		b = append(b, `,"issued_us":`...)
		b = strconv.AppendInt(b, us, 10)
	}
	b = append(b, `,"raw":"`...)
	b = jsonenc.AppendChars(b, res.Raw, false)
	return append(b, "\"}\n"...)
}

// receiptColumns is the read_ndjson column list of the receipts spool.
const receiptColumns = `{line: 'BIGINT', format: 'VARCHAR', verdict: 'VARCHAR', reasons: 'VARCHAR',
	action_id: 'VARCHAR', agent_id: 'VARCHAR', issuer_id: 'VARCHAR', org_id: 'VARCHAR',
	session_id: 'VARCHAR', step: 'BIGINT', action_type: 'VARCHAR', tool_name: 'VARCHAR',
	tool_fingerprint: 'VARCHAR', tool_match: 'VARCHAR', tool_servers: 'VARCHAR', nonce: 'VARCHAR',
	call_signature: 'VARCHAR', signature: 'VARCHAR', previous_hash: 'VARCHAR', chain_hash: 'VARCHAR',
	decision: 'VARCHAR', issued_us: 'BIGINT', raw: 'VARCHAR'}`

// receiptSelect turns a spool row into a receipts row; $1 is file_sha256,
// $2 source, $3 the UTC day of the load ('YYYY-MM-DD'). issued_at is a
// TIMESTAMP (no time zone) made from UTC microseconds, so day, its date,
// does not depend on any session setting. A receipt without a readable
// issued_at (UndoLog rows and Overturn entries carry none) gets the day of
// its load, so that some daily report covers it.
const receiptSelect = `SELECT $1, $2, line, format, verdict, reasons, action_id, agent_id,
	issuer_id, org_id, session_id, step, action_type, tool_name, tool_fingerprint, tool_match,
	tool_servers, nonce, call_signature, signature, previous_hash, chain_hash, decision,
	make_timestamp(issued_us), COALESCE(CAST(make_timestamp(issued_us) AS DATE), CAST($3 AS DATE)), raw`

// appendRejectRow appends one rejects row (see appendReceiptRow). raw is
// left out (NULL) when the line was too long to keep or is not valid UTF-8,
// which a VARCHAR cannot hold exactly.
func appendRejectRow(b []byte, res *verify.Result) []byte {
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, int64(res.Line), 10)
	msg := res.Error
	if msg == "" {
		msg = joinReasons(res.Reasons)
	}
	b = append(b, `,"error":"`...)
	b = jsonenc.AppendChars(b, strings.ToValidUTF8(msg, "\uFFFD"), false)
	b = append(b, '"')
	if res.Raw != nil && utf8.Valid(res.Raw) && bytes.IndexByte(res.Raw, 0) < 0 {
		b = append(b, `,"raw":"`...)
		b = jsonenc.AppendChars(b, res.Raw, false)
		b = append(b, '"')
	}
	return append(b, "}\n"...)
}

const rejectColumns = `{line: 'BIGINT', error: 'VARCHAR', raw: 'VARCHAR'}`

const rejectSelect = `SELECT $1, $2, line, error, raw`

func joinReasons(rs []verify.Reason) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(string(r))
	}
	return b.String()
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
