package verify

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify/dsse"
	"github.com/receiptverify/verify/verify/keys"
)

// dsseTestKey is a fixed P-256 key and the JWK set that publishes it as kid "k".
func dsseTestKey(t *testing.T) (*ecdsa.PrivateKey, *keys.Directory) {
	t.Helper()
	d := sha256.Sum256([]byte("dsse unit test key"))
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d[:])
	if err != nil {
		t.Fatal(err)
	}
	pt, _ := priv.PublicKey.Bytes()
	b64 := base64.RawURLEncoding.EncodeToString
	set := `{"keys":[{"kty":"EC","crv":"P-256","kid":"k","x":"` + b64(pt[1:33]) + `","y":"` + b64(pt[33:]) + `"}]}`
	s, err := keys.Load("k.json", []byte(set))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := keys.NewDirectory(s)
	if err != nil {
		t.Fatal(err)
	}
	return priv, dir
}

func dsseEnvelope(body string, sigs ...string) []byte {
	type sig struct {
		KeyID string `json:"keyid"`
		Sig   string `json:"sig"`
	}
	env := struct {
		PayloadType string `json:"payloadType"`
		Payload     string `json:"payload"`
		Signatures  []sig  `json:"signatures"`
	}{"text/plain", base64.StdEncoding.EncodeToString([]byte(body)), nil}
	for _, s := range sigs {
		env.Signatures = append(env.Signatures, sig{"k", s})
	}
	b, _ := json.Marshal(env)
	return b
}

// TestDSSEECDSAForms checks that an ES256 signature verifies in either
// spelling of (r, s), DER and raw, and that a tampered one fails in both.
func TestDSSEECDSAForms(t *testing.T) {
	t.Parallel()
	priv, dir := dsseTestKey(t)
	v, _ := New(dir)
	body := "hello"
	h := sha256.Sum256(dsse.PAE("text/plain", []byte(body)))
	der, err := ecdsa.SignASN1(nil, priv, h[:])
	if err != nil {
		t.Fatal(err)
	}
	r, s, err := ecdsa.Sign(nil, priv, h[:])
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 64)
	r.FillBytes(raw[:32])
	s.FillBytes(raw[32:])
	enc := base64.StdEncoding.EncodeToString
	flipped := func(b []byte) []byte { c := append([]byte(nil), b...); c[len(c)-1] ^= 1; return c }
	for _, tc := range []struct {
		name, sig string
		want      Verdict
		note      string
	}{
		{"der", enc(der), Pass, "ASN.1 DER"},
		{"raw", enc(raw), Pass, "raw r||s"},
		{"der tampered", enc(flipped(der)), Fail, "does not verify"},
		{"raw tampered", enc(flipped(raw)), Fail, "does not verify"},
		{"der with trailing byte", enc(append(append([]byte(nil), der...), 0)), Fail, "does not verify"},
	} {
		res, err := v.Verify(dsseEnvelope(body, tc.sig))
		if err != nil {
			t.Fatal(err)
		}
		if note := res.Axes.Of(AxisSignature).Note; res.Verdict != tc.want || !strings.Contains(note, tc.note) {
			t.Errorf("%s: %s, note %q", tc.name, res.Verdict, note)
		}
	}
}

// TestDSSESeveralSignatures checks the protocol for several signatures:
// one verifying signature carries the envelope, every outcome is named,
// a signature that is not base64 fails it, and the count is bounded.
func TestDSSESeveralSignatures(t *testing.T) {
	t.Parallel()
	priv, dir := dsseTestKey(t)
	v, _ := New(dir)
	h := sha256.Sum256(dsse.PAE("text/plain", []byte("hello")))
	der, _ := ecdsa.SignASN1(nil, priv, h[:])
	good := base64.StdEncoding.EncodeToString(der)
	other := sha256.Sum256(dsse.PAE("text/plain", []byte("other")))
	derOther, _ := ecdsa.SignASN1(nil, priv, other[:])
	bad := base64.StdEncoding.EncodeToString(derOther)

	res, _ := v.Verify(dsseEnvelope("hello", bad, good))
	note := res.Axes.Of(AxisSignature).Note
	if res.Verdict != Pass || !strings.Contains(note, "1 of 2") || !strings.Contains(note, "signatures[0]: ES256 by k") {
		t.Errorf("bad then good: %s %q", res.Verdict, note)
	}
	if res, _ := v.Verify(dsseEnvelope("hello", bad, bad)); res.Verdict != Fail || res.Axes.Of(AxisSignature).Reason != ReasonBadSignature {
		t.Errorf("two bad: %s %v", res.Verdict, res.Reasons)
	}
	if res, _ := v.Verify(dsseEnvelope("hello", good, "not base64!")); res.Verdict != Fail || res.Axes.Of(AxisSignature).Reason != ReasonBadEncoding {
		t.Errorf("one not base64: %s %v", res.Verdict, res.Reasons)
	}
	many := make([]string, 33)
	for i := range many {
		many[i] = good
	}
	if res, _ := v.Verify(dsseEnvelope("hello", many...)); res.Verdict != Fail || res.Axes.Of(AxisStructure).Reason != ReasonBadField {
		t.Errorf("33 signatures: %s %v", res.Verdict, res.Reasons)
	}
}

// TestDSSENoKeyID checks that a signature naming no keyid is tried against
// every key it could be by, and that the number of such trials is bounded.
func TestDSSENoKeyID(t *testing.T) {
	t.Parallel()
	priv, _ := dsseTestKey(t)
	h := sha256.Sum256(dsse.PAE("text/plain", []byte("hello")))
	der, _ := ecdsa.SignASN1(nil, priv, h[:])
	env := strings.Replace(string(dsseEnvelope("hello", base64.StdEncoding.EncodeToString(der))), `"keyid":"k"`, `"keyid":""`, 1)
	directory := func(others int) *keys.Directory {
		b64 := base64.RawURLEncoding.EncodeToString
		var entries []string
		for i := 0; i <= others; i++ {
			k := priv
			if i < others {
				d := sha256.Sum256([]byte("other key " + itoa(i)))
				k, _ = ecdsa.ParseRawPrivateKey(elliptic.P256(), d[:])
			}
			pt, _ := k.PublicKey.Bytes()
			entries = append(entries, `{"kty":"EC","crv":"P-256","kid":"k`+itoa(i)+`","x":"`+b64(pt[1:33])+`","y":"`+b64(pt[33:])+`"}`)
		}
		s, err := keys.Load("many.json", []byte(`{"keys":[`+strings.Join(entries, ",")+`]}`))
		if err != nil {
			t.Fatal(err)
		}
		dir, _ := keys.NewDirectory(s)
		return dir
	}
	v, _ := New(directory(3))
	if res, _ := v.Verify([]byte(env)); res.Verdict != Pass || res.Fields.KeyID != "k3" {
		t.Errorf("fourth of four keys: %s %s %v", res.Verdict, res.Fields.KeyID, res.Reasons)
	}
	v, _ = New(directory(64))
	if res, _ := v.Verify([]byte(env)); res.Verdict != Incomplete || res.Axes.Of(AxisIssuerKey).Reason != ReasonUnknownKey || !strings.Contains(res.Axes.Of(AxisSignature).Note, "65 keys could have made it") {
		t.Errorf("65 keys to try: %s %v %q", res.Verdict, res.Reasons, res.Axes.Of(AxisSignature).Note)
	}
}

// FuzzVerifyDSSE: with a key in the directory, a DSSE envelope passes only
// if one of its signatures verifies over the PAE of its payload, checked
// here with the standard library alone.
func FuzzVerifyDSSE(f *testing.F) {
	d := sha256.Sum256([]byte("dsse unit test key"))
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d[:])
	if err != nil {
		f.Fatal(err)
	}
	pt, _ := priv.PublicKey.Bytes()
	b64 := base64.RawURLEncoding.EncodeToString
	s, err := keys.Load("k.json", []byte(`{"keys":[{"kty":"EC","crv":"P-256","kid":"k","x":"`+b64(pt[1:33])+`","y":"`+b64(pt[33:])+`"}]}`))
	if err != nil {
		f.Fatal(err)
	}
	dir, _ := keys.NewDirectory(s)
	v, _ := New(dir)
	h := sha256.Sum256(dsse.PAE("text/plain", []byte("hello")))
	der, _ := ecdsa.SignASN1(nil, priv, h[:])
	r, ss, _ := ecdsa.Sign(nil, priv, h[:])
	raw := append(r.FillBytes(make([]byte, 32)), ss.FillBytes(make([]byte, 32))...)
	enc := base64.StdEncoding.EncodeToString
	f.Add(dsseEnvelope("hello", enc(der)))
	f.Add(dsseEnvelope("hello", enc(raw), enc(der)))
	f.Add([]byte(strings.Replace(string(dsseEnvelope("hello", enc(der))), `"keyid":"k"`, `"keyid":""`, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, _ := v.Verify(data)
		if res.Verdict != Pass {
			return
		}
		var env struct {
			PayloadType string `json:"payloadType"`
			Payload     string `json:"payload"`
			Signatures  []struct {
				Sig string `json:"sig"`
			} `json:"signatures"`
		}
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatalf("PASS for an envelope encoding/json cannot read: %v", err)
		}
		decode := func(s string) ([]byte, error) {
			var err error
			for _, e := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
				var b []byte
				if b, err = e.DecodeString(s); err == nil {
					return b, nil
				}
			}
			return nil, err
		}
		body, err := decode(env.Payload)
		if err != nil {
			t.Fatalf("PASS for a payload that is not base64: %s", data)
		}
		h := sha256.Sum256(dsse.PAE(env.PayloadType, body))
		for _, sg := range env.Signatures {
			sig, err := decode(sg.Sig)
			if err != nil {
				continue
			}
			if ecdsa.VerifyASN1(&priv.PublicKey, h[:], sig) {
				return
			}
			if len(sig) == 64 {
				r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
				if ecdsa.Verify(&priv.PublicKey, h[:], r, s) {
					return
				}
			}
		}
		t.Fatalf("PASS with no signature the standard library verifies: %s", data)
	})
}
