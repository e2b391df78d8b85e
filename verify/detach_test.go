package verify

import (
	"path/filepath"
	"testing"
)

// TestVerifyDoesNotKeepRaw verifies every conformance receipt (every
// format), overwrites the bytes it was verified from, and checks that its
// Result did not change.
func TestVerifyDoesNotKeepRaw(t *testing.T) {
	receipts, err := filepath.Glob("../testdata/receipts/*/receipt.json")
	if err != nil || len(receipts) != 52 {
		t.Fatalf("%d cases: %v", len(receipts), err)
	}
	for _, path := range receipts {
		dir := filepath.Dir(path)
		raw := readFile(t, path)
		res, _ := corpusVerifier(t, dir).Verify(raw)
		want := res.AppendJSON(nil)
		for i := range raw {
			raw[i] = 'X'
		}
		if got := res.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("%s: the result changed with the bytes it came from:\n%s\nwas\n%s", dir, got, want)
		}
	}
}

// TestVerifyOptions checks what each VerifyOptions field leaves out, on a
// real ML-DSA-65 receipt, and that the verdict does not depend on them.
func TestVerifyOptions(t *testing.T) {
	dir := "../testdata/receipts/asqav-06-mldsa65-payload-prod"
	raw := readFile(t, filepath.Join(dir, "receipt.json"))
	v := corpusVerifier(t, dir)
	full, _ := v.VerifyWith(raw, VerifyOptions{})
	if full.Fields.Signature == "" || len(full.Fields.SignatureSHA256) != 64 {
		t.Fatalf("default: signature %d bytes, hash %q", len(full.Fields.Signature), full.Fields.SignatureSHA256)
	}
	for _, o := range []VerifyOptions{{DropSignature: true}, {OmitSignatureHash: true}, {DropSignature: true, OmitSignatureHash: true}} {
		res, _ := v.VerifyWith(raw, o)
		if (res.Fields.Signature == "") != o.DropSignature || (res.Fields.SignatureSHA256 == "") != o.OmitSignatureHash {
			t.Errorf("%+v: signature %d bytes, hash %q", o, len(res.Fields.Signature), res.Fields.SignatureSHA256)
		}
		if res.Verdict != full.Verdict || res.Fields.SignatureSHA256 != "" && res.Fields.SignatureSHA256 != full.Fields.SignatureSHA256 {
			t.Errorf("%+v: verdict %s, hash %s; want %s, %s", o, res.Verdict, res.Fields.SignatureSHA256, full.Verdict, full.Fields.SignatureSHA256)
		}
	}
}

// TestKeepSigned checks that VerifyOptions.KeepSigned keeps signed bytes
// for every conformance receipt whose signature passes, none without it,
// and changes nothing else in the result.
func TestKeepSigned(t *testing.T) {
	receipts, err := filepath.Glob("../testdata/receipts/*/receipt.json")
	if err != nil || len(receipts) == 0 {
		t.Fatalf("%d cases: %v", len(receipts), err)
	}
	passed := 0
	for _, path := range receipts {
		dir := filepath.Dir(path)
		raw := readFile(t, path)
		v := corpusVerifier(t, dir)
		plain, _ := v.Verify(raw)
		res, _ := v.VerifyWith(raw, VerifyOptions{KeepSigned: true})
		if plain.Signed != nil {
			t.Errorf("%s: Signed kept without KeepSigned", dir)
		}
		if string(res.AppendJSON(nil)) != string(plain.AppendJSON(nil)) {
			t.Errorf("%s: KeepSigned changed the result", dir)
		}
		if res.Axes.Of(AxisSignature).Status != StatusPass {
			continue
		}
		passed++
		if len(res.Signed) == 0 {
			t.Errorf("%s: signature PASS but no signed bytes kept", dir)
		}
	}
	if passed < 10 {
		t.Fatalf("only %d receipts with a passing signature", passed)
	}
}
