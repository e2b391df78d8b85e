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
