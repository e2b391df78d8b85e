package sigalg_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"testing"

	"github.com/receiptverify/verify/verify/sigalg"
)

// TestECDSACurves checks that ES384 and ES512 pair each curve with its
// own hash, in raw and DER form, and that another hash does not verify.
func TestECDSACurves(t *testing.T) {
	t.Parallel()
	msg := []byte("DSSEv1 4 test 5 hello")
	for _, c := range []struct {
		alg   sigalg.Alg
		curve elliptic.Curve
		hash  func([]byte) []byte
		wrong func([]byte) []byte
	}{
		{sigalg.ES384, elliptic.P384(), func(b []byte) []byte { h := sha512.Sum384(b); return h[:] }, func(b []byte) []byte { h := sha256.Sum256(b); return h[:] }},
		{sigalg.ES512, elliptic.P521(), func(b []byte) []byte { h := sha512.Sum512(b); return h[:] }, func(b []byte) []byte { h := sha512.Sum384(b); return h[:] }},
	} {
		priv, err := ecdsa.GenerateKey(c.curve, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		k, err := sigalg.PublicKeyFromCrypto(&priv.PublicKey)
		if err != nil || k.Alg() != c.alg {
			t.Fatalf("%s: %v %v", c.alg, k, err)
		}
		der, _ := ecdsa.SignASN1(rand.Reader, priv, c.hash(msg))
		if err := k.VerifyECDSADER(msg, der); err != nil {
			t.Errorf("%s DER: %v", c.alg, err)
		}
		r, s, _ := ecdsa.Sign(rand.Reader, priv, c.hash(msg))
		n := k.SignatureSize() / 2
		raw := make([]byte, 2*n)
		r.FillBytes(raw[:n])
		s.FillBytes(raw[n:])
		if err := k.Verify(msg, raw); err != nil {
			t.Errorf("%s raw: %v", c.alg, err)
		}
		bad, _ := ecdsa.SignASN1(rand.Reader, priv, c.wrong(msg))
		if err := k.VerifyECDSADER(msg, bad); !errors.Is(err, sigalg.ErrBadSignature) {
			t.Errorf("%s over another hash: %v", c.alg, err)
		}
		if err := k.VerifyECDSADER(msg, append(der, 0)); !errors.Is(err, sigalg.ErrMalformedSignature) {
			t.Errorf("%s trailing byte: %v", c.alg, err)
		}
		back, err := sigalg.NewPublicKey(c.alg, k.Bytes())
		if err != nil || !back.Equal(k) {
			t.Errorf("%s round trip: %v", c.alg, err)
		}
	}
}

// TestPS256Salt checks the salt rule: a salt of the hash's length
// verifies, the maximal one (PSSSaltLengthAuto on signing) does not.
func TestPS256Salt(t *testing.T) {
	t.Parallel()
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	k, err := sigalg.PublicKeyFromCrypto(&priv.PublicKey)
	if err != nil || k.Alg() != sigalg.PS256 || k.SignatureSize() != 256 {
		t.Fatalf("%v %v", k, err)
	}
	msg := []byte("payload")
	h := sha256.Sum256(msg)
	good, _ := rsa.SignPSS(rand.Reader, priv, crypto.SHA256, h[:], &rsa.PSSOptions{SaltLength: 32})
	if err := k.Verify(msg, good); err != nil {
		t.Errorf("salt 32: %v", err)
	}
	auto, _ := rsa.SignPSS(rand.Reader, priv, crypto.SHA256, h[:], &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthAuto})
	if err := k.Verify(msg, auto); !errors.Is(err, sigalg.ErrBadSignature) {
		t.Errorf("maximal salt: %v", err)
	}
	v15, _ := rsa.SignPKCS1v15(rand.Reader, priv, crypto.SHA256, h[:])
	if err := k.Verify(msg, v15); !errors.Is(err, sigalg.ErrBadSignature) {
		t.Errorf("PKCS #1 v1.5: %v", err)
	}
	if err := k.Verify(msg, good[1:]); !errors.Is(err, sigalg.ErrMalformedSignature) {
		t.Errorf("short: %v", err)
	}
	back, err := sigalg.NewPublicKey(sigalg.PS256, k.Bytes())
	if err != nil || !back.Equal(k) {
		t.Errorf("round trip: %v", err)
	}
	weak, _ := rsa.GenerateKey(rand.Reader, 1024)
	if _, err := sigalg.PublicKeyFromCrypto(&weak.PublicKey); !errors.Is(err, sigalg.ErrUnsupportedAlg) {
		t.Errorf("1024-bit key: %v", err)
	}
}
