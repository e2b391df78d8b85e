package verify

import (
	"errors"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/fingerprint"
)

// Tool-call records that carry a fingerprint instead of a signature are
// receipts too: the check is that the stored fingerprint is what the
// producer's own canonical form gives.
//
//   - An Overturn recording entry {kind, name, args, matchOn?, ignoreArgs?,
//     fingerprint}: the Overturn v1 fingerprint.
//   - An UndoLog effect-log row {session_id, step_index, tool_name, args,
//     call_signature}: the BLAKE3 call signature, under each canonical
//     profile in turn; the result names the profile that reproduces it
//     (rows written by the Rust engine differ from the Python reference on
//     non-ASCII text, rows of the TypeScript SDK on astral member names
//     and integers beyond 2^53).
//
// Neither is signed, so the key and signature axes are not run; a match is
// a PASS of what such a record can prove.
var (
	overturnFormat = format{name: "overturn-recording", detect: isOverturn, check: checkOverturn, signs: []string{"name", "kind", "args", "fingerprint"}}
	undoLogFormat  = format{name: "undolog-effect", detect: isUndoLog, check: checkUndoLog, signs: []string{"session_id", "step_index", "tool_name", "args", "call_signature"}}
)

func isOverturn(doc *canon.Value) bool {
	return doc.Get("fingerprint") != nil && doc.Get("name") != nil && doc.Get("args") != nil && doc.Get("payload") == nil
}

func isUndoLog(doc *canon.Value) bool {
	return doc.Get("call_signature") != nil && doc.Get("session_id") != nil && doc.Get("step_index") != nil
}

func notSigned(c *check, what string) {
	for _, a := range []AxisName{AxisIssuerKey, AxisIssuerBind, AxisKeyStatus, AxisSignature, AxisPayloadDigest, AxisActionRef, AxisAnchors} {
		c.notRun(a, what+" records are not signed")
	}
}

func checkOverturn(c *check) {
	notSigned(c, "Overturn")
	stored, ok := c.requireStr(c.doc, "", "fingerprint")
	c.res.Fields.ToolName = str(c.doc, "name")
	if !ok {
		return
	}
	got, err := fingerprint.OverturnRecord(c.raw)
	if err != nil {
		c.fail(AxisStructure, ReasonBadField, err.Error())
		return
	}
	c.res.Fingerprints.Overturn = got
	if got != stored {
		c.fail(AxisSignature, ReasonFingerprintMismatch, "fingerprint recomputes to "+got)
		return
	}
	c.pass(AxisSignature, "fingerprint matches (overturn-v1)")
}

func checkUndoLog(c *check) {
	notSigned(c, "UndoLog")
	f := &c.res.Fields
	f.SessionID = str(c.doc, "session_id")
	f.ToolName = str(c.doc, "tool_name")
	f.Step = integer(c.doc, "step_index")
	stored, ok := c.requireStr(c.doc, "", "call_signature")
	if !ok {
		return
	}
	profile, err := fingerprint.MatchUndoLogProfile(c.raw, stored)
	var fe *fingerprint.FieldError
	switch {
	case errors.As(err, &fe):
		c.fail(AxisStructure, ReasonBadField, err.Error())
		return
	case err != nil:
		if sig, e := fingerprint.UndoLogRecord(canon.UndoLogP3(), c.raw); e == nil {
			c.res.Fingerprints.CallSignature = sig
		}
		c.fail(AxisSignature, ReasonFingerprintMismatch, err.Error())
		return
	}
	c.res.Fingerprints.CallSignature = stored
	c.res.Fingerprints.UndoLogProfile = profile
	c.pass(AxisSignature, "call_signature matches ("+profile+")")
}
