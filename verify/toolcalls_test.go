package verify

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestUndoLogRows verifies every official call signature as an effect-log
// row, and a tampered copy of each.
func TestUndoLogRows(t *testing.T) {
	f, err := os.Open("../testdata/undolog/call-signatures.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, _ := New(nil)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var vec struct {
			ArgsJSON  string `json:"args_json"`
			SessionID string `json:"session_id"`
			Signature string `json:"signature"`
			Step      uint32 `json:"step_index"`
			Tool      string `json:"tool_name"`
		}
		if err := json.Unmarshal(sc.Bytes(), &vec); err != nil {
			t.Fatal(err)
		}
		n++
		head := `{"session_id":` + quote(vec.SessionID) + `,"step_index":` + itoa(int(vec.Step)) + `,"tool_name":` + quote(vec.Tool) + `,"args":` + vec.ArgsJSON
		row := head + `,"call_signature":"` + vec.Signature + `"}`
		res, err := v.Verify([]byte(row))
		if err != nil || res.Format != "undolog-effect" || res.Verdict != Pass || res.Fingerprints.UndoLogProfile == "" {
			t.Fatalf("row %d: %v %s\n%s", n, err, row, dump(res))
		}
		bad := head + `,"call_signature":"` + strings.Repeat("0", 64) + `"}`
		if res, _ := v.Verify([]byte(bad)); res.Verdict != Fail || res.Axes[AxisSignature].Reason != ReasonFingerprintMismatch {
			t.Fatalf("tampered row %d: %s", n, dump(res))
		}
	}
	if n != 96 {
		t.Fatalf("%d vectors, want 96", n)
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
