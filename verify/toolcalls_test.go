package verify

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/vectors"
)

// TestUndoLogRows verifies every official call signature as an effect-log
// row, and a tampered copy of each.
func TestUndoLogRows(t *testing.T) {
	type vector struct {
		ArgsJSON  string `json:"args_json"`
		SessionID string `json:"session_id"`
		Signature string `json:"signature"`
		Step      uint32 `json:"step_index"`
		Tool      string `json:"tool_name"`
	}
	vecs := vectors.ReadJSONL[vector](t, "../testdata/undolog/call-signatures.jsonl")
	if len(vecs) != 96 {
		t.Fatalf("%d vectors, want 96", len(vecs))
	}
	v, _ := New(nil)
	for n, vec := range vecs {
		head := `{"session_id":` + quote(vec.SessionID) + `,"step_index":` + itoa(int(vec.Step)) + `,"tool_name":` + quote(vec.Tool) + `,"args":` + vec.ArgsJSON
		row := head + `,"call_signature":"` + vec.Signature + `"}`
		res, err := v.Verify([]byte(row))
		if err != nil || res.Format != "undolog-effect" || res.Verdict != Pass || res.Fingerprints.UndoLogProfile == "" {
			t.Fatalf("row %d: %v %s\n%s", n+1, err, row, dump(res))
		}
		bad := head + `,"call_signature":"` + strings.Repeat("0", 64) + `"}`
		if res, _ := v.Verify([]byte(bad)); res.Verdict != Fail || res.Axes.Of(AxisSignature).Reason != ReasonFingerprintMismatch {
			t.Fatalf("tampered row %d: %s", n+1, dump(res))
		}
	}
}

func TestOverturnRecording(t *testing.T) {
	v, _ := New(nil)
	good := `{"kind":"tool_call","name":"signup","args":{"email":" a@b.c ","plan":"pro"},"fingerprint":"%s"}`
	rec := strings.Replace(good, `"fingerprint":"%s"`, `"fingerprint":"x"`, 1)
	res, _ := v.Verify([]byte(rec))
	want := res.Fingerprints.Overturn
	if res.Verdict != Fail || want == "" {
		t.Fatalf("mismatch: %s", dump(res))
	}
	res, _ = v.Verify([]byte(strings.Replace(good, "%s", want, 1)))
	if res.Verdict != Pass || res.Format != "overturn-recording" {
		t.Fatalf("match: %s", dump(res))
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
