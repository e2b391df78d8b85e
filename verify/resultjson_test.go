package verify

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestAppendJSONAsEncodingJSON pins Result.AppendJSON to encoding/json with
// HTML escaping off, on the result of every conformance receipt, the
// hostile inputs, and results with every optional member set or empty.
func TestAppendJSONAsEncodingJSON(t *testing.T) {
	var results []*Result
	paths, _ := filepath.Glob("../testdata/receipts/*/receipt.json")
	for _, p := range paths {
		v := corpusVerifier(t, filepath.Dir(p))
		res, _ := v.Verify(readFile(t, p))
		results = append(results, res)
	}
	v, _ := New(nil)
	for _, in := range []string{"", "{", `{"a":1}`, "[]", `{"payload":{"x":"<&>\u2028"},"signature":{"alg":"Ed25519","kid":"k<>","sig":"AA"}}`} {
		res, _ := v.Verify([]byte(in))
		results = append(results, res)
	}
	step := int64(-7)
	results = append(results,
		&Result{}, // nil reasons and axes
		&Result{Version: 1, Source: "a\"b<c>&\x01\u2028\xff", Line: 3, Reasons: []Reason{"x", "<y>"},
			Axes:         axesOf(map[AxisName]Axis{AxisSignature: {Status: StatusFail, Reason: "r&", Note: "<n>"}}),
			Fields:       Fields{Step: &step, ToolServers: []string{"crm", "h<d>"}, KeySelfAsserted: true, SignatureSHA256: "ab", Alg: "é"},
			Fingerprints: Fingerprints{PayloadDigest: &PayloadDigest{Hash: "h", Size: 0}, UndoLogProfile: "p3"}},
	)
	for i, r := range results {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		got := append(r.AppendJSON(nil), '\n')
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("result %d:\n got %s\nwant %s", i, got, want.Bytes())
		}
	}
}
