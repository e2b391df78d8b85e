package verify

import (
	"path/filepath"
	"testing"

	"github.com/receiptverify/verify/verify/sigalg"
)

// BenchmarkVerifyMLDSA65 times Verifier.Verify on one real ML-DSA-65
// payload-mode receipt (asqav-06: 11 KB with its timestamp anchors)
// against the signature check alone over the same canonical payload, on
// one goroutine. The difference is what a receipt costs beyond its
// signature: parsing, canonical forms, digests, key lookup, result.
//
//	go test -run '^$' -bench VerifyMLDSA65 -benchmem ./verify/
func BenchmarkVerifyMLDSA65(b *testing.B) {
	dir := filepath.Join("..", "testdata", "receipts", "asqav-06-mldsa65-payload-prod")
	v := corpusVerifier(b, dir)
	raw := readFile(b, filepath.Join(dir, "receipt.json"))
	if res, _ := v.Verify(raw); res.Verdict != Pass {
		b.Fatalf("verdict %s %v", res.Verdict, res.Reasons)
	}
	b.Run("receipt", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			v.Verify(raw)
		}
	})
	b.Run("signature", func(b *testing.B) {
		doc, err := parseReceipt(raw)
		if err != nil {
			b.Fatal(err)
		}
		p, s := doc.Get("payload"), doc.Get("signature")
		msg, err := asqavDialect(asqavIssuedText(p)).Append(nil, p)
		if err != nil {
			b.Fatal(err)
		}
		sig, err := sigalg.DecodeBase64Any(s.Get("sig").Text)
		if err != nil {
			b.Fatal(err)
		}
		key, err := v.keys.ResolveAsqav(s.Get("kid").Text, str(p, "agent_id"), str(p, "issuer_id"), str(p, "org_id"))
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := key.Verify(msg, sig); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAppendJSON writes the JSON result of the real ML-DSA-65 receipt
// asqav-06, as `verify receipts -o json` does for every receipt.
func BenchmarkAppendJSON(b *testing.B) {
	dir := filepath.Join("..", "testdata", "receipts", "asqav-06-mldsa65-payload-prod")
	res, _ := corpusVerifier(b, dir).Verify(readFile(b, filepath.Join(dir, "receipt.json")))
	out := res.AppendJSON(nil)
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		out = res.AppendJSON(out[:0])
	}
}
