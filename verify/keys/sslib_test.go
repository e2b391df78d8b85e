package keys_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
)

func pemOf(t *testing.T, typ string, der []byte) []byte {
	t.Helper()
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// TestPEMKeyIDIsLoadKeys checks that a PEM key file's kid is the keyid
// go-securesystemslib's LoadKey computes for the same PEM, public or
// private, on every key type it loads, and that the algorithm follows the
// key.
func TestPEMKeyIDIsLoadKeys(t *testing.T) {
	t.Parallel()
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p521, _ := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	_, ek, _ := ed25519.GenerateKey(rand.Reader)
	pkcs8 := func(k any) []byte { d, _ := x509.MarshalPKCS8PrivateKey(k); return d }
	spki := func(k any) []byte { d, _ := x509.MarshalPKIXPublicKey(k); return d }
	ecPriv, _ := x509.MarshalECPrivateKey(p384)
	for _, c := range []struct {
		name string
		pem  []byte
		alg  sigalg.Alg
	}{
		{"p384 public", pemOf(t, "PUBLIC KEY", spki(&p384.PublicKey)), sigalg.ES384},
		{"p521 public", pemOf(t, "PUBLIC KEY", spki(&p521.PublicKey)), sigalg.ES512},
		{"p256 public", pemOf(t, "PUBLIC KEY", spki(&p256.PublicKey)), sigalg.ES256},
		{"rsa public", pemOf(t, "PUBLIC KEY", spki(&rk.PublicKey)), sigalg.PS256},
		{"ed25519 public", pemOf(t, "PUBLIC KEY", spki(ek.Public())), sigalg.Ed25519},
		{"p521 pkcs8", pemOf(t, "PRIVATE KEY", pkcs8(p521)), sigalg.ES512},
		{"rsa pkcs1", pemOf(t, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rk)), sigalg.PS256},
		{"p384 sec1", pemOf(t, "EC PRIVATE KEY", ecPriv), sigalg.ES384},
		{"ed25519 pkcs8", pemOf(t, "PRIVATE KEY", pkcs8(ek)), sigalg.Ed25519},
	} {
		ref, err := signerverifier.LoadKey(c.pem)
		if err != nil {
			t.Fatalf("%s: LoadKey: %v", c.name, err)
		}
		s, err := keys.Load("key.pem", c.pem)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		k := s.Keys[0]
		if s.Format != keys.FormatPEM || k.KID != ref.KeyID || k.Alg != c.alg || k.Public == nil {
			t.Errorf("%s: %s kid %s alg %s, want pem kid %s alg %s", c.name, s.Format, k.KID, k.Alg, ref.KeyID, c.alg)
		}
	}
}

// TestSSLibKeyFile checks the securesystemslib key JSON: the keyid as
// written, or computed as LoadKeyFromSSLibBytes computes it when absent
// (keyid_hash_algorithms included, null when not given), in a keys list or
// a {keyid: key} map.
func TestSSLibKeyFile(t *testing.T) {
	t.Parallel()
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(&p384.PublicKey)
	public := strings.TrimSpace(string(pemOf(t, "PUBLIC KEY", der)))
	for _, c := range []struct {
		name string
		key  map[string]any
	}{
		{"hash algorithms", map[string]any{"keytype": "ecdsa", "scheme": "ecdsa-sha2-nistp384", "keyid_hash_algorithms": []string{"sha256", "sha512"}, "keyval": map[string]any{"public": public}}},
		{"no hash algorithms", map[string]any{"keytype": "ecdsa", "scheme": "ecdsa-sha2-nistp384", "keyval": map[string]any{"public": public}}},
		{"empty hash algorithms", map[string]any{"keytype": "ecdsa", "scheme": "ecdsa-sha2-nistp256", "keyid_hash_algorithms": []string{}, "keyval": map[string]any{"public": public}}},
		{"keyid given", map[string]any{"keytype": "ecdsa", "scheme": "ecdsa-sha2-nistp384", "keyid": "abc", "keyval": map[string]any{"public": public}}},
	} {
		raw, _ := json.Marshal(c.key)
		//lint:ignore SA1019 the producer's own loader of this key format, whose keyids the test checks against
		ref, err := signerverifier.LoadKeyFromSSLibBytes(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range [][]byte{raw, []byte(`{"keys":[` + string(raw) + `]}`)} {
			s, err := keys.Load("key.json", file)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if k := s.Keys[0]; k.KID != ref.KeyID || k.Alg != sigalg.ES384 || k.Public == nil {
				t.Errorf("%s: kid %s alg %s, want %s ES384", c.name, k.KID, k.Alg, ref.KeyID)
			}
		}
	}
	tuf := []byte(`{"keys":{"id1":{"keytype":"ecdsa","scheme":"ecdsa-sha2-nistp384","keyval":{"public":` + quoteJSON(public) + `}}}}`)
	s, err := keys.Load("root.json", tuf)
	if err != nil || s.Format != keys.FormatSSLib || s.Keys[0].KID != "id1" || s.Keys[0].Public == nil {
		t.Errorf("TUF keys map: %v %+v", err, s)
	}
}

// TestUnsupportedKeysKeepTheirID checks that a key of a scheme or
// algorithm this tool does not verify still resolves, with an
// unsupported_alg error, so a signature by it is left unchecked rather
// than unknown or failed; and that an RSA JWK must say PS256.
func TestUnsupportedKeysKeepTheirID(t *testing.T) {
	t.Parallel()
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	der, _ := x509.MarshalPKIXPublicKey(&rk.PublicKey)
	public := quoteJSON(strings.TrimSpace(string(pemOf(t, "PUBLIC KEY", der))))
	for name, file := range map[string]string{
		"pkcs1v15 scheme": `{"keytype":"rsa","scheme":"rsa-pkcs1v15-sha256","keyid":"k1","keyval":{"public":` + public + `}}`,
		"unknown keytype": `{"keytype":"sphincs","scheme":"sphincs-shake-128s","keyid":"k1","keyval":{"public":"00"}}`,
		"RS256 JWK":       `{"keys":[{"kty":"RSA","alg":"RS256","kid":"k1","n":"AQAB","e":"AQAB"}]}`,
		"RSA JWK no alg":  `{"keys":[{"kty":"RSA","kid":"k1","n":"AQAB","e":"AQAB"}]}`,
	} {
		s, err := keys.Load("key.json", []byte(file))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		k := s.Keys[0]
		if k.KID != "k1" || k.Public != nil || !errors.Is(k.Err, keys.ErrUnsupportedAlg) {
			t.Errorf("%s: kid %q public %v err %v, want k1 unsupported_alg", name, k.KID, k.Public, k.Err)
		}
	}
	// A PEM key of a curve LoadKey loads and this tool does not verify
	// keeps LoadKey's keyid.
	p224, _ := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	der224, _ := x509.MarshalPKIXPublicKey(&p224.PublicKey)
	pem224 := pemOf(t, "PUBLIC KEY", der224)
	ref, err := signerverifier.LoadKey(pem224)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := keys.Load("key.pem", pem224); err != nil || s.Keys[0].KID != ref.KeyID || !errors.Is(s.Keys[0].Err, keys.ErrUnsupportedAlg) {
		t.Errorf("P-224 PEM: %v %+v", err, s)
	}
	// A keytype that does not match its PEM is malformed, not unsupported.
	s, err := keys.Load("key.json", []byte(`{"keytype":"ecdsa","scheme":"ecdsa-sha2-nistp256","keyid":"k1","keyval":{"public":`+public+`}}`))
	if err != nil || !errors.Is(s.Keys[0].Err, keys.ErrMalformedKey) {
		t.Errorf("ecdsa keytype on an RSA key: %v %v", err, s.Keys[0].Err)
	}
	// Two publics in one keyval say two things about one key.
	s, err = keys.Load("key.json", []byte(`{"keytype":"rsa","scheme":"rsassa-pss-sha256","keyid":"k1","keyval":{"public":`+public+`,"public":`+public+`}}`))
	if err != nil || !errors.Is(s.Keys[0].Err, keys.ErrMalformedKey) {
		t.Errorf("duplicate keyval.public: %v %v", err, s.Keys[0].Err)
	}
}

func quoteJSON(s string) string { b, _ := json.Marshal(s); return string(b) }
