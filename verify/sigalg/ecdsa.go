package sigalg

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/sha512"
	"math/big"
)

// ecdsaCurve is the curve and hash of an ECDSA algorithm: the JOSE pairing
// (P-256 with SHA-256, P-384 with SHA-384), which is also the one the W3C
// ecdsa cryptosuites use.
func ecdsaCurve(alg Alg) (elliptic.Curve, func([]byte) []byte, string) {
	switch alg {
	case ES256:
		return elliptic.P256(), func(m []byte) []byte { h := sha256.Sum256(m); return h[:] }, "P-256"
	case ES384:
		return elliptic.P384(), func(m []byte) []byte { h := sha512.Sum384(m); return h[:] }, "P-384"
	}
	return nil, nil, ""
}

// ecdsaVerifier checks raw, an uncompressed point 0x04||X||Y, and returns
// the function that verifies a raw r||s signature over a message.
func ecdsaVerifier(alg Alg, raw []byte) (verifyFunc, error) {
	curve, hash, name := ecdsaCurve(alg)
	pk, err := ecdsa.ParseUncompressedPublicKey(curve, raw)
	if err != nil {
		return nil, &Error{Reason: ReasonMalformedKey, Alg: alg, Detail: "not a " + name + " point", Err: err}
	}
	n := alg.SignatureSize() / 2
	return func(msg, sig []byte) bool {
		r := new(big.Int).SetBytes(sig[:n])
		s := new(big.Int).SetBytes(sig[n:])
		return ecdsa.Verify(pk, hash(msg), r, s)
	}, nil
}

// NewCompressedPublicKey parses an ES256 or ES384 key given as a
// compressed point (0x02 or 0x03, then X: 33 bytes for P-256, 49 for
// P-384), the form did:key and Multikey carry. The point is checked to
// be on the curve; the key keeps its uncompressed encoding.
func NewCompressedPublicKey(alg Alg, compressed []byte) (*PublicKey, error) {
	curve, _, name := ecdsaCurve(alg)
	if curve == nil {
		return nil, &Error{Reason: ReasonUnsupportedAlg, Alg: alg, Detail: "compressed points exist only for ES256 and ES384"}
	}
	if want := (alg.PublicKeySize()-1)/2 + 1; len(compressed) != want {
		return nil, &Error{Reason: ReasonMalformedKey, Alg: alg,
			Err: &SizeError{What: "compressed public key", Alg: alg, Got: len(compressed), Want: want}}
	}
	x, y := elliptic.UnmarshalCompressed(curve, compressed) //nolint:staticcheck // no replacement decompresses
	if x == nil {
		return nil, &Error{Reason: ReasonMalformedKey, Alg: alg, Detail: "not a compressed " + name + " point"}
	}
	return NewPublicKey(alg, elliptic.Marshal(curve, x, y)) //nolint:staticcheck // the encoding NewPublicKey takes
}

// CompressedBytes returns an ES256 or ES384 key as a compressed point, nil
// for other algorithms.
func (k *PublicKey) CompressedBytes() []byte {
	curve, _, _ := ecdsaCurve(k.alg)
	if curve == nil {
		return nil
	}
	n := (len(k.raw) - 1) / 2
	x := new(big.Int).SetBytes(k.raw[1 : 1+n])
	y := new(big.Int).SetBytes(k.raw[1+n:])
	return elliptic.MarshalCompressed(curve, x, y)
}
