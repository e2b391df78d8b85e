package sigalg_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha512"
	"errors"
	"testing"

	"github.com/receiptverify/verify/verify/sigalg"
)

// TestES384 verifies a P-384 signature made by the standard library: the
// message is hashed with SHA-384, the signature is raw r||s, and a key
// given as a compressed point is the same key.
func TestES384(t *testing.T) {
	t.Parallel()
	priv, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := priv.PublicKey.Bytes()
	if alg, ok := sigalg.AlgForKeySize(raw); !ok || alg != sigalg.ES384 {
		t.Fatalf("AlgForKeySize = %s %v", alg, ok)
	}
	key, err := sigalg.NewPublicKey(sigalg.ES384, raw)
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("hash data")
	h := sha512.Sum384(msg)
	r, s, err := ecdsa.Sign(rand.Reader, priv, h[:])
	if err != nil {
		t.Fatal(err)
	}
	sig := make([]byte, 96)
	r.FillBytes(sig[:48])
	s.FillBytes(sig[48:])
	if err := key.Verify(msg, sig); err != nil {
		t.Fatalf("genuine signature: %v", err)
	}
	sig[95] ^= 1
	if err := key.Verify(msg, sig); !errors.Is(err, sigalg.ErrBadSignature) {
		t.Errorf("changed signature: %v", err)
	}
	if err := key.Verify(msg, sig[:64]); !errors.Is(err, sigalg.ErrMalformedSignature) {
		t.Errorf("64-byte signature: %v", err)
	}
	back, err := sigalg.NewCompressedPublicKey(sigalg.ES384, key.CompressedBytes())
	if err != nil || !back.Equal(key) {
		t.Errorf("compressed round trip: %v", err)
	}
	if _, err := sigalg.NewCompressedPublicKey(sigalg.ES256, key.CompressedBytes()); !errors.Is(err, sigalg.ErrMalformedKey) {
		t.Errorf("P-384 point as P-256: %v", err)
	}
}
