package verify

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fxamacker/cbor/v2"
	"github.com/veraison/go-cose"

	"github.com/receiptverify/verify/internal/limits"
	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/tlog"
)

// scittKey is an Ed25519 key from a fixed seed, and its JWKS entry.
func scittKey(name string) (ed25519.PrivateKey, map[string]any) {
	seed := sha256.Sum256([]byte(name))
	priv := ed25519.NewKeyFromSeed(seed[:])
	return priv, map[string]any{"kty": "OKP", "crv": "Ed25519", "kid": name,
		"x": base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey))}
}

// scittSign makes a COSE_Sign1 (tagged unless untagged) with go-cose,
// Ed25519 (deterministic), over payload, or over detached when payload is
// nil; a nil unprotected header is an empty one.
func scittSign(t *testing.T, priv ed25519.PrivateKey, protected cose.ProtectedHeader, unprotected cose.UnprotectedHeader, payload, detached []byte, untagged bool) []byte {
	t.Helper()
	alg, err := protected.Algorithm()
	if err != nil {
		t.Fatal(err)
	}
	// Signs with the Ed25519 key whatever alg the header names.
	signer := edSigner{priv, alg}
	m := cose.Sign1Message{Headers: cose.Headers{Protected: protected, Unprotected: unprotected}, Payload: payload}
	if payload == nil {
		m.Payload = detached
	}
	if err := m.Sign(rand.Reader, nil, signer); err != nil {
		t.Fatal(err)
	}
	if payload == nil {
		m.Payload = nil
	}
	var b []byte
	if untagged {
		u := cose.UntaggedSign1Message(m)
		b, err = u.MarshalCBOR()
	} else {
		b, err = m.MarshalCBOR()
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// edSigner is a cose.Signer that signs with Ed25519 under any alg.
type edSigner struct {
	priv ed25519.PrivateKey
	alg  cose.Algorithm
}

func (s edSigner) Algorithm() cose.Algorithm { return s.alg }
func (s edSigner) Sign(_ io.Reader, content []byte) ([]byte, error) {
	return ed25519.Sign(s.priv, content), nil
}

// scittReceiptFor registers statement as leaf 1 of a two-leaf log and
// returns the service's receipt: its protected header as given (alg,
// kid, vds added unless present), its proof [2, 1, [leaf 0]], and its
// signature over the root, detached unless attachRoot.
func scittReceiptFor(t *testing.T, ts ed25519.PrivateKey, statement []byte, protected cose.ProtectedHeader, path [][]byte, attachRoot bool) []byte {
	t.Helper()
	entry, err := registered(statement)
	if err != nil {
		t.Fatal(err)
	}
	other := tlog.LeafHash([]byte("another statement"))
	root := tlog.NodeHash(other, tlog.LeafHash(entry))
	if path == nil {
		path = [][]byte{other}
	}
	proof, err := cbor.Marshal([]any{2, 1, path})
	if err != nil {
		t.Fatal(err)
	}
	if protected == nil {
		protected = cose.ProtectedHeader{}
	}
	protected[cose.HeaderLabelAlgorithm] = cose.AlgorithmEdDSA
	protected[cose.HeaderLabelKeyID] = []byte("ts")
	if _, ok := protected[int64(coseVDS)]; !ok {
		protected[int64(coseVDS)] = coseVDSRFC9162
	}
	unprotected := cose.UnprotectedHeader{int64(coseVDP): map[any]any{int64(coseInclusion): []any{proof}}}
	if attachRoot {
		return scittSign(t, ts, protected, unprotected, root, nil, false)
	}
	return scittSign(t, ts, protected, unprotected, nil, root, false)
}

// withReceipts puts receipts in the statement's unprotected header 394.
func withReceipts(t *testing.T, statement []byte, receipts ...any) []byte {
	t.Helper()
	var m cose.Sign1Message
	if err := m.UnmarshalCBOR(statement); err != nil {
		t.Fatal(err)
	}
	m.Headers.Unprotected = cose.UnprotectedHeader{int64(coseReceipts): receipts}
	m.Headers.RawUnprotected = nil // else go-cose writes the header it read
	b, err := m.MarshalCBOR()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func scittLine(statement, detached []byte) []byte {
	line := map[string]string{"transparent_statement": base64.RawURLEncoding.EncodeToString(statement)}
	if detached != nil {
		line["detached_payload"] = base64.RawURLEncoding.EncodeToString(detached)
	}
	b, _ := json.Marshal(line)
	return b
}

// TestSCITTEdges: the shapes of a transparent statement the producer's
// vectors do not hold, each with the verdict, reason codes and anchors
// outcome it must get.
func TestSCITTEdges(t *testing.T) {
	t.Parallel()
	issuer, issuerJWK := scittKey("issuer")
	ts, tsJWK := scittKey("ts")
	jwks, _ := json.Marshal(map[string]any{"keys": []any{issuerJWK, tsJWK}})
	snap, err := keys.Load("jwks.json", jwks)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := keys.NewDirectory(snap)
	if err != nil {
		t.Fatal(err)
	}
	v, err := New(dir, WithTime(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}

	payload := []byte(`{"action":"tool_call"}`)
	prot := func() cose.ProtectedHeader {
		return cose.ProtectedHeader{cose.HeaderLabelAlgorithm: cose.AlgorithmEdDSA, cose.HeaderLabelKeyID: []byte("issuer")}
	}
	claims := prot()
	claims[int64(coseCWTClaims)] = map[any]any{int64(cwtIssuer): "did:web:agent.example", int64(cwtIssuedAt): int64(1796040000)}
	withClaims := scittSign(t, issuer, claims, nil, payload, nil, false)
	statement := scittSign(t, issuer, prot(), nil, payload, nil, false)
	detached := scittSign(t, issuer, prot(), nil, nil, payload, false)
	unknownKid := prot()
	unknownKid[cose.HeaderLabelKeyID] = []byte("nobody")
	es256 := prot()
	es256[cose.HeaderLabelAlgorithm] = cose.AlgorithmES256
	vds2 := cose.ProtectedHeader{int64(coseVDS): int64(2)}
	short := [][]byte{make([]byte, 31)}
	good := scittReceiptFor(t, ts, statement, nil, nil, false)
	many := make([]any, limits.MaxSCITTReceipts+1)
	for i := range many {
		many[i] = good
	}

	// A NOA receipt payload claiming to start a chain (prevHash null) at
	// seq 3: its chain.hash right, its position not.
	noa := func(seq string) []byte {
		body := `{"spec":"noa.receipt/0.1","id":"r","ts":"2026-11-30T12:00:00.000Z","scope":{"tenant":"t","chain":"c"},"chain":{"seq":` + seq + `,"prevHash":null,"hash":"H"},"sig":{"alg":"ed25519","kid":"k","value":"v"}}`
		r, err := canon.Parse([]byte(body), receiptParse)
		if err != nil {
			t.Fatal(err)
		}
		h, err := noaChainHash(&r)
		if err != nil {
			t.Fatal(err)
		}
		return []byte(strings.Replace(body, `"H"`, `"sha256:`+h+`"`, 1))
	}

	for _, tc := range []struct {
		name    string
		line    []byte
		verdict Verdict
		reasons []Reason
		anchors Status
	}{
		{"valid", scittLine(withReceipts(t, statement, good), nil), Pass, nil, StatusPass},
		{"noa genesis", scittLine(scittSign(t, issuer, prot(), nil, noa("0"), nil, false), nil), Pass, nil, StatusNotRun},
		{"noa genesis claimed at seq 3", scittLine(scittSign(t, issuer, prot(), nil, noa("3"), nil, false), nil), Fail, []Reason{"chain_mismatch"}, StatusNotRun},
		{"cwt claims", scittLine(withReceipts(t, withClaims, scittReceiptFor(t, ts, withClaims, nil, nil, false)), nil), Pass, nil, StatusPass},
		{"detached", scittLine(withReceipts(t, detached, scittReceiptFor(t, ts, detached, nil, nil, false)), payload), Pass, nil, StatusPass},
		{"detached payload missing", scittLine(detached, nil), Fail, []Reason{"missing_field"}, ""},
		{"detached payload beside an attached one", scittLine(statement, payload), Fail, []Reason{"bad_field"}, ""},
		{"untagged", scittLine(scittSign(t, issuer, prot(), nil, payload, nil, true), nil), Fail, []Reason{"malformed"}, ""},
		{"not base64url", []byte(`{"transparent_statement":"***"}`), Fail, []Reason{"bad_encoding"}, ""},
		{"not cbor", scittLine([]byte("not cbor"), nil), Fail, []Reason{"malformed"}, ""},
		{"unknown issuer key", scittLine(scittSign(t, issuer, unknownKid, nil, payload, nil, false), nil), Incomplete, []Reason{"unknown_key", "uncheckable", "uncheckable"}, StatusNotRun},
		{"alg not the key's", scittLine(scittSign(t, issuer, es256, nil, payload, nil, false), nil), Fail, []Reason{"alg_mismatch"}, StatusNotRun},
		{"receipt of another data structure", scittLine(withReceipts(t, statement, scittReceiptFor(t, ts, statement, vds2, nil, false)), nil), Incomplete, []Reason{"unsupported"}, StatusSkipped},
		{"receipt with its root attached", scittLine(withReceipts(t, statement, scittReceiptFor(t, ts, statement, nil, nil, true)), nil), Fail, []Reason{"bad_inclusion_proof"}, StatusFail},
		{"path hash of 31 bytes", scittLine(withReceipts(t, statement, scittReceiptFor(t, ts, statement, nil, short, false)), nil), Fail, []Reason{"bad_inclusion_proof"}, StatusFail},
		{"receipt of another statement", scittLine(withReceipts(t, statement, scittReceiptFor(t, ts, withClaims, nil, nil, false)), nil), Fail, []Reason{"bad_inclusion_proof"}, StatusFail},
		{"receipt not a byte string", scittLine(withReceipts(t, statement, "receipt"), nil), Fail, []Reason{"bad_field"}, StatusFail},
		{"too many receipts", scittLine(withReceipts(t, statement, many...), nil), Fail, []Reason{"bad_field"}, StatusFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := v.Verify(tc.line)
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != "scitt-statement" || res.Verdict != tc.verdict || !slices.Equal(res.Reasons, tc.reasons) {
				t.Fatalf("%s %s %v, want scitt-statement %s %v\n%s", res.Format, res.Verdict, res.Reasons, tc.verdict, tc.reasons, dump(res))
			}
			if tc.anchors != "" && res.Axes.Of(AxisAnchors).Status != tc.anchors {
				t.Errorf("anchors %s, want %s: %s", res.Axes.Of(AxisAnchors).Status, tc.anchors, res.Axes.Of(AxisAnchors).Note)
			}
			if tc.name == "cwt claims" && (res.Fields.IssuedAt != "2026-11-30T12:00:00Z" || res.Fields.IssuerID != "did:web:agent.example") {
				t.Errorf("issued_at %q, issuer %q from the CWT claims", res.Fields.IssuedAt, res.Fields.IssuerID)
			}
		})
	}
}

// FuzzSCITTStatement: any bytes as a transparent statement's COSE_Sign1
// (the vectors' statements the seeds) give a verdict without panic, and
// none passes by accident.
func FuzzSCITTStatement(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/interop/scitt/*/receipt.json")
	for _, p := range paths {
		var line struct {
			Statement string `json:"transparent_statement"`
		}
		if err := json.Unmarshal(readFile(f, p), &line); err != nil {
			f.Fatal(err)
		}
		b, err := base64.RawURLEncoding.DecodeString(line.Statement)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	v, err := New(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, statement []byte) {
		res, err := v.Verify(scittLine(statement, nil))
		if err != nil || res == nil || res.Format != "scitt-statement" {
			t.Fatalf("%v %v", res, err)
		}
		if res.Verdict == Pass {
			t.Fatalf("PASS without keys: %s", dump(res))
		}
	})
}
