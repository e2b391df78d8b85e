package sigalg

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	_ "crypto/sha256" // the hashes the curves are paired with
	_ "crypto/sha512"
	"math/big"
)

// ecdsaParams pairs each ECDSA algorithm with its curve and hash: P-256
// with SHA-256, P-384 with SHA-384, P-521 with SHA-512, as JOSE does and
// as go-securesystemslib's ECDSASignerVerifier chooses by the key's curve.
func ecdsaParams(a Alg) (elliptic.Curve, crypto.Hash) {
	switch a {
	case ES384:
		return elliptic.P384(), crypto.SHA384
	case ES512:
		return elliptic.P521(), crypto.SHA512
	}
	return elliptic.P256(), crypto.SHA256
}

// setECDSA checks k.raw as a point of its algorithm's curve and sets the
// verifying function, which takes the raw r||s form.
func (k *PublicKey) setECDSA() error {
	curve, hash := ecdsaParams(k.alg)
	pk, err := ecdsa.ParseUncompressedPublicKey(curve, k.raw)
	if err != nil {
		return &Error{Reason: ReasonMalformedKey, Alg: k.alg, Detail: "not a " + curve.Params().Name + " point", Err: err}
	}
	n := k.sigSize / 2
	k.expand = func() (verifyFunc, error) {
		return func(msg, sig []byte) bool {
			h := hash.New()
			h.Write(msg)
			r := new(big.Int).SetBytes(sig[:n])
			s := new(big.Int).SetBytes(sig[n:])
			return ecdsa.Verify(pk, h.Sum(nil), r, s)
		}, nil
	}
	return nil
}

// NewCompressedPublicKey parses an ECDSA key given as a compressed point
// (0x02 or 0x03, then X: 33 bytes for P-256, 49 for P-384, 67 for P-521),
// the form did:key and Multikey carry. The point is checked to be on the
// curve; the key keeps its uncompressed encoding.
func NewCompressedPublicKey(alg Alg, compressed []byte) (*PublicKey, error) {
	if !alg.IsECDSA() {
		return nil, &Error{Reason: ReasonUnsupportedAlg, Alg: alg, Detail: "compressed points exist only for ECDSA"}
	}
	curve, _ := ecdsaParams(alg)
	if want := (alg.PublicKeySize()-1)/2 + 1; len(compressed) != want {
		return nil, &Error{Reason: ReasonMalformedKey, Alg: alg,
			Err: &SizeError{What: "compressed public key", Alg: alg, Got: len(compressed), Want: want}}
	}
	x, y := elliptic.UnmarshalCompressed(curve, compressed) //nolint:staticcheck // no replacement decompresses
	if x == nil {
		return nil, &Error{Reason: ReasonMalformedKey, Alg: alg, Detail: "not a compressed " + curve.Params().Name + " point"}
	}
	// The uncompressed point (SEC 1: 04 || X || Y), the encoding
	// NewPublicKey takes.
	n := (curve.Params().BitSize + 7) / 8
	point := make([]byte, 1+2*n)
	point[0] = 4
	x.FillBytes(point[1 : 1+n])
	y.FillBytes(point[1+n:])
	return NewPublicKey(alg, point)
}

// CompressedBytes returns an ECDSA key as a compressed point, nil for
// other algorithms.
func (k *PublicKey) CompressedBytes() []byte {
	if !k.alg.IsECDSA() {
		return nil
	}
	curve, _ := ecdsaParams(k.alg)
	n := (len(k.raw) - 1) / 2
	x := new(big.Int).SetBytes(k.raw[1 : 1+n])
	y := new(big.Int).SetBytes(k.raw[1+n:])
	return elliptic.MarshalCompressed(curve, x, y)
}
