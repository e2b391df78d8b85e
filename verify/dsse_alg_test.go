package verify

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	_ "crypto/sha512"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify/dsse"
	"github.com/receiptverify/verify/verify/keys"
)

// TestDSSEUnsupportedAlg checks that a DSSE signature whose key is of an
// algorithm the tool does not verify is INCOMPLETE (unsupported_alg),
// never FAIL, while a key that is merely broken still fails.
func TestDSSEUnsupportedAlg(t *testing.T) {
	t.Parallel()
	n := base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat("\xc5", 256)))
	for _, c := range []struct {
		name, file string
		verdict    Verdict
		reason     Reason
	}{
		{"RS256 JWK", `{"keys":[{"kty":"RSA","alg":"RS256","kid":"k","n":"` + n + `","e":"AQAB"}]}`, Incomplete, ReasonUnsupportedAlg},
		{"P-256K JWK", `{"keys":[{"kty":"EC","crv":"secp256k1","kid":"k","x":"AA","y":"AA"}]}`, Incomplete, ReasonUnsupportedAlg},
		{"pkcs1v15 scheme", `{"keytype":"rsa","scheme":"rsa-pkcs1v15-sha256","keyid":"k","keyval":{"public":"x"}}`, Incomplete, ReasonUnsupportedAlg},
		{"broken P-384 JWK", `{"keys":[{"kty":"EC","crv":"P-384","kid":"k","x":"AA","y":"AA"}]}`, Fail, ReasonMalformedKey},
	} {
		s, err := keys.Load("k.json", []byte(c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		dir, err := keys.NewDirectory(s)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := New(dir)
		res, err := v.Verify(dsseEnvelope("hello", base64.StdEncoding.EncodeToString(make([]byte, 256))))
		if err != nil {
			t.Fatal(err)
		}
		if ax := res.Axes.Of(AxisSignature); res.Verdict != c.verdict || ax.Reason != c.reason {
			t.Errorf("%s: %s %s (%s), want %s %s", c.name, res.Verdict, ax.Reason, ax.Note, c.verdict, c.reason)
		}
	}
}

// TestDSSENoKeyIDLargerCurves checks that a signature naming no keyid is
// tried against P-384 and P-521 keys in DER, whose length bound differs
// from P-256's.
func TestDSSENoKeyIDLargerCurves(t *testing.T) {
	t.Parallel()
	for _, curve := range []elliptic.Curve{elliptic.P384(), elliptic.P521()} {
		priv, err := ecdsa.GenerateKey(curve, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		pt, _ := priv.PublicKey.Bytes()
		n := (len(pt) - 1) / 2
		b64 := base64.RawURLEncoding.EncodeToString
		set := `{"keys":[{"kty":"EC","crv":"` + curve.Params().Name + `","kid":"k","x":"` + b64(pt[1:1+n]) + `","y":"` + b64(pt[1+n:]) + `"}]}`
		s, err := keys.Load("k.json", []byte(set))
		if err != nil {
			t.Fatal(err)
		}
		dir, _ := keys.NewDirectory(s)
		v, _ := New(dir)
		h := crypto.SHA384.New()
		if curve == elliptic.P521() {
			h = crypto.SHA512.New()
		}
		h.Write(dsse.PAE("text/plain", []byte("hello")))
		der, _ := ecdsa.SignASN1(rand.Reader, priv, h.Sum(nil))
		env := strings.Replace(string(dsseEnvelope("hello", base64.StdEncoding.EncodeToString(der))), `"keyid":"k"`, `"keyid":""`, 1)
		res, err := v.Verify([]byte(env))
		if err != nil || res.Verdict != Pass {
			t.Errorf("%s without keyid: %v %s %+v", curve.Params().Name, err, res.Verdict, res.Axes.Of(AxisSignature))
		}
	}
}
