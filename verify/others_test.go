package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
)

// othersCase pins one conformance case of the ACTA, AERF, agentreceipts,
// authproof and pipelock formats: the verdict the corpus expects, the axis
// its reason code maps to, and the reason this tool gives on that axis.
type othersCase struct {
	dir     string
	format  string
	verdict Verdict
	axis    AxisName // the axis that must fail (FAIL cases)
	reason  Reason   // its reason here
	chain   Status   // the chain axis, when the case is about it
}

var othersCases = []othersCase{
	{"acta-01-genesis", "acta", Pass, "", "", StatusNotRun},
	{"acta-02-chain-link", "acta", Pass, "", "", StatusPass},
	{"acta-03-tamper-sig", "acta", Fail, AxisSignature, ReasonBadSignature, ""},
	{"acta-05-commitment-mode-unsupported", "acta", Fail, AxisSignature, ReasonUnsupported, ""},
	{"acta-up-01-a2a-trusted-attestation", "acta", Pass, "", "", ""},
	{"acta-up-02-a2a-trajectory-endpoint", "acta", Pass, "", "", ""},
	{"acta-up-03-a2a-tampered-sig", "acta", Fail, AxisSignature, ReasonBadSignature, ""},
	{"aerf-01-genesis", "aerf", Pass, "", "", StatusNotRun},
	{"aerf-02-chain-link", "aerf", Pass, "", "", StatusPass},
	{"aerf-03-tamper-evidence", "aerf", Fail, AxisSignature, ReasonBadSignature, ""},
	{"aerf-04-tamper-chain", "aerf", Fail, AxisChain, ReasonChainMismatch, StatusFail},
	{"aerf-up-01-genesis-happy-path", "aerf", Pass, "", "", StatusNotRun},
	{"aerf-up-02-chain-happy-path", "aerf", Pass, "", "", StatusPass},
	{"aerf-up-03-tamper-evidence", "aerf", Fail, AxisSignature, ReasonBadSignature, ""},
	{"aerf-up-04-tamper-chain", "aerf", Fail, AxisSignature, ReasonBadSignature, StatusPass},
	{"aerf-up-05-impact-no-parent-sig", "aerf", Fail, AxisSignature, ReasonParentSignature, ""},
	{"aerf-up-06-impact-with-parent-sig", "aerf", Pass, "", "", ""},
	{"aerf-up-07-pdp-binding-valid", "aerf", Pass, "", "", ""},
	{"aerf-up-08-pdp-binding-split-context", "aerf", Fail, AxisSignature, ReasonPDPSignature, ""},
	{"aerf-up-11-tag-stripped-known-limit", "aerf", Pass, "", "", ""},
	{"aerf-up-12-common-mode-known-limit", "aerf", Pass, "", "", ""},
	{"agentreceipts-01-didkey-genesis", "agentreceipts", Pass, "", "", StatusPass},
	{"agentreceipts-02-didkey-chain-link", "agentreceipts", Pass, "", "", StatusPass},
	{"agentreceipts-03-tamper-payload", "agentreceipts", Fail, AxisSignature, ReasonBadSignature, ""},
	{"agentreceipts-04-tamper-proofvalue", "agentreceipts", Fail, AxisSignature, ReasonBadSignature, ""},
	{"agentreceipts-05-genesis-missing-prev-hash", "agentreceipts", Fail, AxisStructure, ReasonMissingField, ""},
	{"agentreceipts-06-wrong-key", "agentreceipts", Fail, AxisSignature, ReasonBadSignature, ""},
	{"agentreceipts-up-00-valid-resigned", "agentreceipts", Pass, "", "", StatusPass},
	{"agentreceipts-up-01-wrong-proof-type", "agentreceipts", Fail, AxisStructure, ReasonBadField, ""},
	{"agentreceipts-up-02-mutated-action-type", "agentreceipts", Fail, AxisSignature, ReasonBadSignature, ""},
	{"agentreceipts-up-03-mutated-principal-id", "agentreceipts", Fail, AxisSignature, ReasonBadSignature, ""},
	{"agentreceipts-up-04-truncated-proof-value", "agentreceipts", Fail, AxisSignature, ReasonBadSignature, ""},
	{"agentreceipts-up-05-wrong-multibase-prefix", "agentreceipts", Fail, AxisSignature, ReasonBadEncoding, ""},
	{"agentreceipts-up-06-flipped-proof-byte", "agentreceipts", Fail, AxisSignature, ReasonBadSignature, ""},
	{"agentreceipts-up-07-tampered-mid-chain", "agentreceipts", Fail, AxisSignature, ReasonBadSignature, ""},
	{"agentreceipts-up-08-valid-chain-link", "agentreceipts", Pass, "", "", StatusPass},
	{"authproof-01-genesis-real-sdk", "authproof", Pass, "", "", StatusNotRun},
	{"authproof-02-forged-sig", "authproof", Fail, AxisSignature, ReasonBadSignature, ""},
	{"authproof-03-tampered-scope", "authproof", Fail, AxisSignature, ReasonBadSignature, ""},
	{"pipelock-ev2-01-proxy-decision", "pipelock-evidence-v2", Pass, "", "", StatusPass},
	{"pipelock-ev2-02-tamper-payload", "pipelock-evidence-v2", Fail, AxisSignature, ReasonBadSignature, ""},
}

// othersReasonAxis maps the corpus's reason codes to the axis that fails.
var othersReasonAxis = map[string]AxisName{
	"issuer_signature": AxisSignature,
	"sig_mismatch":     AxisSignature,
	"parent_signature": AxisSignature,
	"pdp_signature":    AxisSignature,
	"chain":            AxisChain,
	"schema":           AxisStructure,
}

var othersAt = corpusAt

func TestOthersCorpus(t *testing.T) {
	t.Parallel()
	for _, tc := range othersCases {
		t.Run(tc.dir, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("..", "testdata", "receipts", tc.dir)
			var want struct {
				Format     string `json:"format"`
				Outcome    string `json:"outcome"`
				ReasonCode string `json:"reason_code"`
			}
			if err := json.Unmarshal(readFile(t, filepath.Join(dir, "expected.json")), &want); err != nil {
				t.Fatal(err)
			}
			// The table must agree with the corpus; an unknown
			// expectation fails.
			switch Verdict(want.Outcome) {
			case Pass, Fail, Incomplete:
			default:
				t.Fatalf("unknown expected outcome %q", want.Outcome)
			}
			if Verdict(want.Outcome) != tc.verdict || want.Format != tc.format {
				t.Fatalf("table says %s/%s, expected.json %s/%s", tc.format, tc.verdict, want.Format, want.Outcome)
			}
			if tc.verdict == Fail {
				axis, ok := othersReasonAxis[want.ReasonCode]
				if !ok {
					t.Fatalf("unknown expected reason %q", want.ReasonCode)
				}
				if axis != tc.axis {
					t.Fatalf("reason %s maps to %s, table says %s", want.ReasonCode, axis, tc.axis)
				}
			}

			res := othersVerify(t, dir)
			if res.Format != tc.format {
				t.Fatalf("format %q, want %q", res.Format, tc.format)
			}
			if res.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s\n%s", res.Verdict, tc.verdict, dump(res))
			}
			if tc.verdict == Fail {
				if ax := res.Axes.Of(tc.axis); ax.Status != StatusFail || ax.Reason != tc.reason {
					t.Fatalf("axis %s is %s/%s, want FAIL/%s\n%s", tc.axis, ax.Status, ax.Reason, tc.reason, dump(res))
				}
			}
			if tc.chain != "" && res.Axes.Of(AxisChain).Status != tc.chain {
				t.Fatalf("chain %s, want %s\n%s", res.Axes.Of(AxisChain).Status, tc.chain, dump(res))
			}
			switch tc.format {
			case "authproof":
				if !res.Fields.KeySelfAsserted {
					t.Error("authproof embeds its key: key_self_asserted must be set")
				}
			case "agentreceipts":
				selfAsserted := !othersHasFile(dir, "did_map.json") // the did:key cases
				if res.Fields.KeySelfAsserted != selfAsserted {
					t.Errorf("key_self_asserted %v, want %v", res.Fields.KeySelfAsserted, selfAsserted)
				}
			default:
				if res.Fields.KeySelfAsserted {
					t.Error("key_self_asserted set for a format whose key comes from the directory")
				}
			}
			if res.Fields.IssuedAt == "" {
				t.Error("issued_at not extracted")
			}
		})
	}
}

// TestOthersChainHash checks that a predecessor's chain hash is what its
// successor names, for every case that ships both.
func TestOthersChainHash(t *testing.T) {
	t.Parallel()
	for _, tc := range othersCases {
		dir := filepath.Join("..", "testdata", "receipts", tc.dir)
		if !othersHasFile(dir, "predecessor.json") || tc.chain != StatusPass {
			continue
		}
		ref, err := chainRefOf(readFile(t, filepath.Join(dir, "predecessor.json")))
		if err != nil {
			t.Fatalf("%s: %v", tc.dir, err)
		}
		res := othersVerify(t, dir)
		prev, genesis, present := res.ChainLink()
		if !present || genesis || prev != ref.hash || ref.scope != res.ScopeKey() {
			t.Errorf("%s: link %q (genesis %v, present %v, scope %q), predecessor hash %q scope %q", tc.dir, prev, genesis, present, res.ScopeKey(), ref.hash, ref.scope)
		}
	}
}

// TestOthersDetectHostile feeds each format's distinctive shape with wrong
// member types: every one must be read as a receipt with a failing
// structure axis (never a panic, never a PASS).
func TestOthersDetectHostile(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"acta payload fields wrong":   `{"payload":{"issued_at":5,"issuer_id":[]},"signature":{"alg":"EdDSA","kid":1,"sig":"00"}}`,
		"acta null previous":          `{"payload":{"issued_at":"2026-01-01T00:00:00Z","previousReceiptHash":null},"signature":{"alg":"EdDSA","kid":"k","sig":"00"}}`,
		"aerf members wrong":          `{"type":"notarised_evidence","evidence_hash_sha512":1,"key_id":2,"signature":{},"in_policy":"yes","impact_tags":"x"}`,
		"aerf null previous":          `{"type":"notarised_evidence","evidence_hash_sha512":"","previous_receipt_hash":null}`,
		"aerf parent sig a number":    `{"type":"notarised_evidence","evidence_hash_sha512":"","impact_tags":["X"],"parent_signature":7}`,
		"agentreceipts proof array":   `{"type":["AgentReceipt"],"proof":[],"issuer":7,"credentialSubject":"x"}`,
		"agentreceipts proof fields":  `{"type":["VerifiableCredential","AgentReceipt"],"proof":{"type":1,"proofValue":2,"verificationMethod":null},"credentialSubject":{"chain":{"previous_receipt_hash":5}}}`,
		"agentreceipts chain missing": `{"type":["AgentReceipt"],"proof":{},"credentialSubject":{}}`,
		"authproof jwk a string":      `{"delegationId":"auth-1-abcde","signerPublicKey":"k","instructionsHash":7,"signature":1,"timeWindow":[]}`,
		"authproof jwk bad":           `{"delegationId":"auth-1-abcde","signerPublicKey":{"kty":"EC","crv":"P-256","x":1},"instructionsHash":"h","signature":"00"}`,
		"pipelock members wrong":      `{"record_type":"evidence_receipt_v2","receipt_version":"2","signature":"x","payload":[],"chain_prev_hash":3}`,
		"pipelock sig fields wrong":   `{"record_type":"evidence_receipt_v2","receipt_version":2,"signature":{"signer_key_id":1,"algorithm":[],"extra":true},"chain_prev_hash":"sha1:ab"}`,
	}
	v, err := New(nil, WithTime(othersAt))
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := v.Verify([]byte(doc))
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			if res.Verdict != Fail || res.Axes.Of(AxisStructure).Status != StatusFail {
				t.Fatalf("verdict %s, structure %s\n%s", res.Verdict, res.Axes.Of(AxisStructure).Status, dump(res))
			}
		})
	}
}

// TestOthersDetectDisjoint checks that the detectors claim only their own
// shapes: an Asqav-native envelope (base64 sig, anchors) is never ACTA.
func TestOthersDetectDisjoint(t *testing.T) {
	t.Parallel()
	parse := func(s string) *canon.Value {
		v, err := canon.Parse([]byte(s), receiptParse)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	for _, tc := range []struct {
		doc  string
		acta bool
	}{
		{`{"payload":{},"signature":{"sig":"abcd"}}`, true},
		{`{"payload":{},"signature":{"sig":"abcd"},"anchors":[]}`, false},
		{`{"payload":{},"signature":{"sig":"ABCD"}}`, false},
		// APS verify reads hex of any case: an Ed25519 signature's 128
		// characters are ACTA whatever the case (mixed fails decoding).
		{`{"payload":{},"signature":{"sig":"` + strings.Repeat("AB", 64) + `"}}`, true},
		{`{"payload":{},"signature":{"sig":"` + strings.Repeat("aB", 64) + `"}}`, true},
		{`{"payload":{},"signature":{"sig":"` + strings.Repeat("AB", 65) + `"}}`, false},
		{`{"payload":{},"signature":{"sig":"` + strings.Repeat("AG", 64) + `"}}`, false},
		{`{"payload":{},"signature":{"sig":"WidJSxXAYyzn6WxgYV2CkMwf=="}}`, false},
		{`{"payload":{},"signature":{"sig":"abc"}}`, false},
		{`{"payload":[],"signature":{"sig":"abcd"}}`, false},
	} {
		if got := isACTA(parse(tc.doc)); got != tc.acta {
			t.Errorf("isACTA(%s) = %v", tc.doc, got)
		}
	}
	for _, f := range []func(*canon.Value) bool{isAERF, isAgentReceipt, isAuthproof, isPipelock} {
		if f(parse(`{"payload":{},"signature":{"sig":"abcd"}}`)) {
			t.Error("a non-ACTA detector claims an ACTA envelope")
		}
	}
}

// TestOthersNFC checks that text not in NFC is normalized before signing
// (the signature still verifies) and that names colliding under NFC fail.
func TestOthersNFC(t *testing.T) {
	t.Parallel()
	decomposed := canon.StringValue("e\u0301")
	v := canon.ObjectValue(canon.Member{Name: "a", Value: decomposed})
	b, changed, err := canonicalNFC(canon.RFC8785(), &v)
	if err != nil || !changed || string(b) != "{\"a\":\"\u00e9\"}" {
		t.Fatalf("got %q, %v, %v", b, changed, err)
	}
	clash := canon.ObjectValue(
		canon.Member{Name: "\u00e9", Value: canon.StringValue("1")},
		canon.Member{Name: "e\u0301", Value: canon.StringValue("2")},
	)
	if _, _, err := canonicalNFC(canon.RFC8785(), &clash); err == nil {
		t.Fatal("names equal under NFC were accepted")
	}
}

// TestOthersJSONStringify pins the authproof serializer to JavaScript's
// JSON.stringify(JSON.parse(x)).
func TestOthersJSONStringify(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"b":1,"a":2}`:                      `{"b":1,"a":2}`,
		`{"b":1,"10":2,"2":3,"01":4,"a":5}`:  `{"2":3,"10":2,"b":1,"01":4,"a":5}`,
		`{"4294967295":1,"4294967294":2}`:    `{"4294967294":2,"4294967295":1}`,
		`[1.0,-0,1e21,1e-7,0.000001,1e400]`:  `[1,0,1e+21,1e-7,0.000001,null]`,
		`"<&>\u2028\u0007\"\\\/\u00e9"`:      "\"<&>\u2028\\u0007\\\"\\\\/\u00e9\"",
		`{"x":[true,false,null,{"y":"\t"}]}`: `{"x":[true,false,null,{"y":"\t"}]}`,
	} {
		v, err := canon.Parse([]byte(in), receiptParse)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendJSONStringify(nil, &v)
		if err != nil || string(got) != want {
			t.Errorf("%s: got %s (%v), want %s", in, got, err, want)
		}
	}
}

// TestOthersPipelockKeyPurpose checks the authority matrix: a valid
// signature by a key of the wrong purpose fails the structure axis.
func TestOthersPipelockKeyPurpose(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "testdata", "receipts", "pipelock-ev2-01-proxy-decision")
	raw := strings.Replace(string(readFile(t, filepath.Join(dir, "receipt.json"))),
		`"key_purpose": "receipt-signing"`, `"key_purpose": "contract-activation-signing"`, 1)
	res := othersVerifyRaw(t, dir, []byte(raw))
	if res.Verdict != Fail || res.Axes.Of(AxisStructure).Reason != ReasonBadField {
		t.Fatalf("wrong key purpose accepted\n%s", dump(res))
	}
}

// TestOthersAERFMissingCoKey checks that a co-signature whose key the
// directory lacks leaves the receipt INCOMPLETE, never PASS.
func TestOthersAERFMissingCoKey(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "testdata", "receipts", "aerf-up-07-pdp-binding-valid")
	data := readFile(t, filepath.Join(dir, "keys.json"))
	data = []byte(strings.Replace(string(data), `"dfe937603b2f3312"`, `"other"`, 1))
	snap, err := keys.Load("keys.json", data)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := keys.NewDirectory(snap)
	v, _ := New(d, WithTime(othersAt))
	res, err := v.Verify(readFile(t, filepath.Join(dir, "receipt.json")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Incomplete || res.Axes.Of(AxisSignature).Status != StatusSkipped {
		t.Fatalf("want INCOMPLETE with the signature skipped\n%s", dump(res))
	}
}

func othersVerify(t *testing.T, dir string) *Result {
	t.Helper()
	return othersVerifyRaw(t, dir, readFile(t, filepath.Join(dir, "receipt.json")))
}

func othersVerifyRaw(t *testing.T, dir string, raw []byte) *Result {
	t.Helper()
	res, err := corpusVerifier(t, dir).Verify(raw)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	return res
}

func othersHasFile(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}
