package verify

import (
	"encoding/base64"
	"strings"
	"testing"

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
