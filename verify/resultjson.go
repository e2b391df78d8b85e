package verify

import (
	"strconv"

	"github.com/receiptverify/verify/internal/helpers/jsonenc"
)

// AppendJSON appends the result's JSON form to dst: byte for byte what
// encoding/json writes with HTML escaping off (json.Encoder.SetEscapeHTML
// (false)), without the newline. It exists because the receipts stream
// writes one result per receipt and reflection-based encoding cost as much
// as a signature check; TestAppendJSONAsEncodingJSON pins the equivalence.
func (r *Result) AppendJSON(b []byte) []byte {
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, int64(r.Version), 10)
	b = jsonStr(b, "source", r.Source)
	if r.Line != 0 {
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(r.Line), 10)
	}
	b = append(b, `,"format":`...)
	b = jsonenc.AppendString(b, r.Format, false)
	b = append(b, `,"verdict":`...)
	b = jsonenc.AppendString(b, string(r.Verdict), false)
	b = append(b, `,"reasons":`...)
	if r.Reasons == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, reason := range r.Reasons {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendString(b, string(reason), false)
		}
		b = append(b, ']')
	}
	b = jsonStr(b, "error", r.Error)
	b = append(b, `,"axes":`...)
	b, _ = r.Axes.appendJSON(b)

	f := &r.Fields
	b = append(b, `,"fields":{`...)
	mark := len(b)
	b = jsonStr(b, "action_id", f.ActionID)
	b = jsonStr(b, "agent_id", f.AgentID)
	b = jsonStr(b, "issuer_id", f.IssuerID)
	b = jsonStr(b, "org_id", f.OrgID)
	b = jsonStr(b, "session_id", f.SessionID)
	if f.Step != nil {
		b = append(b, `,"step":`...)
		b = strconv.AppendInt(b, *f.Step, 10)
	}
	b = jsonStr(b, "action_type", f.ActionType)
	b = jsonStr(b, "tool_name", f.ToolName)
	b = jsonStr(b, "tool_fingerprint", f.ToolFingerprint)
	if len(f.ToolServers) > 0 {
		b = append(b, `,"tool_servers":[`...)
		for i, s := range f.ToolServers {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendString(b, s, false)
		}
		b = append(b, ']')
	}
	b = jsonStr(b, "nonce", f.Nonce)
	b = jsonStr(b, "issued_at", f.IssuedAt)
	b = jsonStr(b, "expires_at", f.ExpiresAt)
	b = jsonStr(b, "decision", f.Decision)
	b = jsonStr(b, "signature_sha256", f.SignatureSHA256)
	b = jsonStr(b, "previous_hash", f.PreviousHash)
	b = jsonStr(b, "key_id", f.KeyID)
	b = jsonStr(b, "alg", f.Alg)
	if f.KeySelfAsserted {
		b = append(b, `,"key_self_asserted":true`...)
	}
	if lc := f.Lifecycle; lc != nil {
		b = append(b, `,"lifecycle":{`...)
		b = jsonenc.AppendString(b, "kind", false)
		b = append(b, ':')
		b = jsonenc.AppendString(b, lc.Kind, false)
		for _, n := range []struct {
			name string
			v    int64
		}{{"heartbeat_seconds", lc.HeartbeatSeconds}, {"final_seq", lc.FinalSeq}, {"receipt_count", lc.ReceiptCount}} {
			if n.v != 0 {
				b = append(b, ',')
				b = jsonenc.AppendString(b, n.name, false)
				b = append(b, ':')
				b = strconv.AppendInt(b, n.v, 10)
			}
		}
		if lc.Head != "" {
			b = append(b, `,"head":`...)
			b = jsonenc.AppendString(b, lc.Head, false)
		}
		if lc.ConsistencySize != 0 {
			b = append(b, `,"consistency_size":`...)
			b = strconv.AppendInt(b, lc.ConsistencySize, 10)
		}
		if lc.ConsistencyRoot != "" {
			b = append(b, `,"consistency_root":`...)
			b = jsonenc.AppendString(b, lc.ConsistencyRoot, false)
		}
		b = append(b, '}')
	}
	b = closeObject(b, mark)

	fp := &r.Fingerprints
	b = append(b, `,"fingerprints":{`...)
	mark = len(b)
	b = jsonStr(b, "action_ref", fp.ActionRef)
	if fp.PayloadDigest != nil {
		b = append(b, `,"payload_digest":{"hash":`...)
		b = jsonenc.AppendString(b, fp.PayloadDigest.Hash, false)
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, int64(fp.PayloadDigest.Size), 10)
		b = append(b, '}')
	}
	b = jsonStr(b, "tool_fingerprint", fp.ToolFingerprint)
	b = jsonStr(b, "chain_hash", fp.ChainHash)
	b = jsonStr(b, "overturn", fp.Overturn)
	b = jsonStr(b, "call_signature", fp.CallSignature)
	b = jsonStr(b, "undolog_profile", fp.UndoLogProfile)
	b = jsonStr(b, "recorder_entry", fp.RecorderEntry)
	b = closeObject(b, mark)
	return append(b, '}')
}

// jsonStr appends `,"name":"value"` for an omitempty string member.
func jsonStr(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return jsonenc.AppendString(b, value, false)
}

// closeObject ends an object whose members were written, each with a
// leading comma, from mark: the first comma goes.
func closeObject(b []byte, mark int) []byte {
	if len(b) > mark {
		b = append(b[:mark], b[mark+1:]...)
	}
	return append(b, '}')
}
