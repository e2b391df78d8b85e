package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/verify/canon"
)

// TestAlgMismatch: a receipt whose alg names another algorithm than its
// key's fails with alg_mismatch, although the signature verifies under the
// key's own algorithm: the envelope was altered.
func TestAlgMismatch(t *testing.T) {
	dir := "../testdata/receipts/asqav-03-chain-link"
	v := corpusVerifier(t, dir)
	raw := readFile(t, filepath.Join(dir, "receipt.json"))
	for _, alg := range []string{"ML-DSA-65", "ES256", "ml-dsa-44"} {
		altered := bytes.Replace(raw, []byte(`"alg": "Ed25519"`), []byte(`"alg": "`+alg+`"`), 1)
		if bytes.Equal(altered, raw) {
			t.Fatal("fixture changed: no alg member to alter")
		}
		res, _ := v.Verify(altered)
		if res.Verdict != Fail || res.Axes.Of(AxisSignature).Reason != ReasonAlgMismatch {
			t.Fatalf("alg %s: %s", alg, dump(res))
		}
	}
	altered := bytes.Replace(raw, []byte(`"alg": "Ed25519"`), []byte(`"alg": "RSA-PSS"`), 1)
	if res, _ := v.Verify(altered); res.Verdict != Fail || res.Axes.Of(AxisSignature).Reason != ReasonUnsupportedAlg {
		t.Fatalf("unknown alg: %s", dump(res))
	}
}

// TestHostileReceipts: each hostile input gets a verdict or an error,
// never a panic or a PASS.
func TestHostileReceipts(t *testing.T) {
	dir := "../testdata/receipts/asqav-03-chain-link"
	v := corpusVerifier(t, dir)
	raw := string(readFile(t, filepath.Join(dir, "receipt.json")))
	deep := `{"payload":{"context":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `},"signature":{"alg":"Ed25519","kid":"k","sig":"AA"}}`
	cases := map[string]string{
		"duplicate member":     strings.Replace(raw, `"decision": "allow",`, `"decision": "allow", "decision": "deny",`, 1),
		"deep nesting":         deep,
		"truncated":            raw[:len(raw)/2],
		"binary garbage":       "\x00\xff\xfe\x01{{{",
		"empty":                "",
		"json array":           "[1,2,3]",
		"payload wrong type":   `{"payload":"x","signature":{"alg":"Ed25519","kid":"k","sig":"AA"}}`,
		"signature wrong type": `{"payload":{},"signature":{"sig":7}}`,
		"hash mode no org":     `{"mode":"hash","payload":null,"signature_b64":"AA","key_id":"k"}`,
		"unknown object":       `{"hello":"world"}`,
	}
	for name, in := range cases {
		res, _ := v.Verify([]byte(in))
		if res == nil || res.Verdict == Pass || res.Verdict == "" {
			t.Errorf("%s: %v", name, res)
		}
	}
	if res, err := v.Verify([]byte(cases["duplicate member"])); err == nil || res.Verdict != Unreadable {
		t.Errorf("duplicate member: want unreadable with an error, got %v %v", res.Verdict, err)
	}
}

// FuzzVerify: receipt parsing and format detection never panic, every
// result has a verdict, and nothing that is not a conformance receipt
// with its key passes by accident of detection.
func FuzzVerify(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/receipts/*/receipt.json")
	interop, _ := filepath.Glob("../testdata/interop/*/*/receipt.json")
	for _, p := range append(paths, interop...) {
		f.Add(readFile(f, p))
	}
	f.Add([]byte(`{"mode":"hash","payload":null,"signature_b64":"AA","key_id":"k","org_id":"o"}`))
	f.Add([]byte(`{"session_id":"550e8400-e29b-41d4-a716-446655440000","step_index":0,"tool_name":"ping","args":{},"call_signature":"00"}`))
	v, err := New(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := v.Verify(data)
		if res == nil {
			t.Fatal("nil result")
		}
		if res.Verdict == Pass && res.Axes.Of(AxisSignature).Status != StatusPass {
			t.Fatalf("PASS without a passed signature axis: %s", dump(res))
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil || !bytes.Equal(append(res.AppendJSON(nil), '\n'), want.Bytes()) {
			t.Fatalf("AppendJSON differs from encoding/json (%v):\n%s\n%s", err, res.AppendJSON(nil), want.Bytes())
		}
		switch res.Verdict {
		case Pass, Fail, Incomplete:
			if err != nil {
				t.Fatalf("verdict %s with error %v", res.Verdict, err)
			}
		case Unreadable:
			var ce *canon.Error
			if !errors.As(err, &ce) || ce.Reason == "" {
				t.Fatalf("unreadable with the error %v (%T), not a *canon.Error with a reason", err, err)
			}
		default:
			t.Fatalf("verdict %q", res.Verdict)
		}
		_, _, _ = res.ChainLink() // what a stream indexes
		_, _ = res.ScopeKey(), res.NonceKey()
		_, _ = res.IssuedTime()
		b := res.appendBinary(nil)
		var back Result
		if err := back.UnmarshalBinary(b); err != nil || !bytes.Equal(back.AppendJSON(nil), res.AppendJSON(nil)) {
			t.Fatalf("binary round trip changed the result (%v)", err)
		}
	})
}

// TestNormalizedNamesLinear: an object of many decomposed member names is
// normalized in linear time (a pairwise check of the renamed names took
// minutes on this input and was reachable from any pipelock receipt).
func TestNormalizedNamesLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"record_type":"evidence_receipt_v2","payload":{`)
	for i := range 50_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"e\u0301%d":1`, i)
	}
	b.WriteString(`}}`)
	v, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *Result, 1)
	go func() { res, _ := v.Verify([]byte(b.String())); done <- res }()
	select {
	case res := <-done:
		if res.Verdict != Fail {
			t.Errorf("verdict %s, want FAIL", res.Verdict)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("normalizing 50,000 member names took over 20s")
	}
}
