package verify

import (
	"bytes"
	"encoding/hex"
	"path/filepath"
	"testing"

	"github.com/receiptverify/verify/verify/keys"
)

// TestDataIntegritySignedBytes: the bytes checked for the W3C test vectors
// are the specifications' own combinedHash values (hash of the canonical
// proof configuration, then of the canonical document), so the signing
// input is the specification's, not merely one that these signatures
// happen to verify.
func TestDataIntegritySignedBytes(t *testing.T) {
	t.Parallel()
	for dir, want := range map[string]string{
		"w3c-di-eddsa-jcs-2022/w3c-signed":      "66ab154f5c2890a140cb8388a22a160454f80575f6eae09e5a097cabe539a1db59b7cb6251b8991add1ce0bc83107e3db9dbbab5bd2c28f687db1a03abc92f19",
		"w3c-di-ecdsa-jcs-2019/p256-w3c-signed": "fe5799489119c7fe3c528715e72bd39d2ec6b4ab345978df32e9a9312648ec2559b7cb6251b8991add1ce0bc83107e3db9dbbab5bd2c28f687db1a03abc92f19",
		"w3c-di-ecdsa-jcs-2019/p384-w3c-signed": "83e5057817abb0c6872eafeaba1a9e53893c58eeb7414fb6d8aa3fa8c7917f7ad4792890b257c598baa17f4fbe6d183c3e0be671cc1881035d463158c80921973dab3534d4f8dfacf4ff2725a4115eb718e49d66de0e90e7365cd6062abf2259",
	} {
		path := filepath.Join("..", "testdata", "interop", dir)
		s, err := keys.Load("did-keys.txt", readFile(t, filepath.Join(path, "did-keys.txt")))
		if err != nil {
			t.Fatal(err)
		}
		d, err := keys.NewDirectory(s)
		if err != nil {
			t.Fatal(err)
		}
		v, err := New(d)
		if err != nil {
			t.Fatal(err)
		}
		res, err := v.VerifyWith(readFile(t, filepath.Join(path, "receipt.json")), VerifyOptions{KeepSigned: true})
		if err != nil || res.Verdict != Pass {
			t.Fatalf("%s: %v\n%s", dir, err, dump(res))
		}
		if got := hex.EncodeToString(res.Signed); got != want {
			t.Errorf("%s: signed %s, want %s", dir, got, want)
		}
	}
}

// TestDataIntegrityDetection: a DataIntegrityProof on an AgentReceipt is
// the agentreceipts format's, and a proof set is detected but not checked.
func TestDataIntegrityDetection(t *testing.T) {
	t.Parallel()
	v, _ := New(nil)
	for raw, want := range map[string]struct {
		format  string
		verdict Verdict
		reason  Reason
	}{
		`{"type":["VerifiableCredential","AgentReceipt"],"proof":{"type":"DataIntegrityProof"}}`:                                                                                                     {"agentreceipts", Fail, ""},
		`{"issuer":"did:example:a","proof":[{"type":"DataIntegrityProof","cryptosuite":"eddsa-jcs-2022"}]}`:                                                                                          {"w3c-data-integrity", Incomplete, ReasonUnsupported},
		`{"issuer":"did:example:a","proof":{"type":"DataIntegrityProof","cryptosuite":"eddsa-rdfc-2022","verificationMethod":"did:example:a#k","proofPurpose":"assertionMethod","proofValue":"z1"}}`: {"w3c-data-integrity", Incomplete, ReasonUnsupportedAlg},
		`{"proof":{"type":"AsqavReceiptSignature2026"}}`:                                                                                                                                             {"unknown", Incomplete, ReasonUnknownFormat},
	} {
		res, _ := v.Verify([]byte(raw))
		if res.Format != want.format || res.Verdict != want.verdict || (want.reason != "" && (len(res.Reasons) == 0 || res.Reasons[0] != want.reason)) {
			t.Errorf("%s: %s %s %v", raw, res.Format, res.Verdict, res.Reasons)
		}
	}
}

// TestDataIntegrityListedDIDKey: a key file that lists a did:key with
// another key than the identifier encodes, or a verification method whose
// fragment names another key, is no key for it.
func TestDataIntegrityListedDIDKey(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "testdata", "interop", "w3c-di-eddsa-jcs-2022", "w3c-signed", "receipt.json")
	raw := readFile(t, path)
	const did = "did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2"
	for name, tc := range map[string]struct {
		keyFile string
		receipt []byte
	}{
		"other key under the did:key": {`{"` + did + `": "` + hex.EncodeToString(make([]byte, 32)) + `"}`, raw},
		"fragment of another key":     {did, bytes.Replace(raw, []byte("#z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2"), []byte("#z6MkwUGG78hK7GKAk3zmy3y7iLCtTnSwvS1crpaKScsmsYGF"), 1)},
	} {
		s, err := keys.Load("keys", []byte(tc.keyFile))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := keys.NewDirectory(s)
		v, _ := New(d)
		res, _ := v.Verify(tc.receipt)
		if ax := res.Axes.Of(AxisIssuerKey); res.Verdict != Fail || ax.Reason != ReasonMalformedKey {
			t.Errorf("%s: %s %v\n%s", name, res.Verdict, res.Reasons, dump(res))
		}
	}
}

// TestAsqavVCExport: the Asqav SDK's Python vc_export maps the receipt
// into a subject of its own and keeps only the signature; it is detected
// and left INCOMPLETE, never passed on the signature alone.
func TestAsqavVCExport(t *testing.T) {
	t.Parallel()
	v, _ := New(nil)
	raw := `{"@context":["https://www.w3.org/ns/credentials/v2"],"type":["VerifiableCredential","AsqavComplianceReceipt"],"issuer":{"id":"org"},` +
		`"credentialSubject":{"agent":{"id":"agt"},"action":{"id":"act"},"policy":{"decision":"allow"}},` +
		`"proof":{"type":"AsqavReceiptSignature2026","asqavAlgorithm":"ML-DSA-65","verificationKeyId":"kid","signatureValue":"AAAA","signingInputBase64":"e30="},"proofIsAsqavNative":true}`
	res, _ := v.Verify([]byte(raw))
	if res.Format != "asqav-vc" || res.Verdict != Incomplete || len(res.Reasons) != 1 || res.Reasons[0] != ReasonUnsupported {
		t.Errorf("%s %s %v", res.Format, res.Verdict, res.Reasons)
	}
}
