package sigalg

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
)

// PublicKeyFromCrypto makes a key of a standard library public key, as
// x509.ParsePKIXPublicKey returns them: Ed25519; ECDSA on P-256, P-384 or
// P-521 (ES256, ES384, ES512, the hash following the curve); RSA as PS256,
// the only RSA scheme this package verifies.
func PublicKeyFromCrypto(pub crypto.PublicKey) (*PublicKey, error) {
	switch pk := pub.(type) {
	case ed25519.PublicKey:
		return NewPublicKey(Ed25519, pk)
	case *ecdsa.PublicKey:
		alg, ok := jwkCurves[pk.Curve.Params().Name]
		if !ok {
			return nil, &Error{Reason: ReasonUnsupportedAlg, Detail: "ECDSA curve " + quote(pk.Curve.Params().Name)}
		}
		raw, err := pk.Bytes()
		if err != nil {
			return nil, &Error{Reason: ReasonMalformedKey, Alg: alg, Err: err}
		}
		return NewPublicKey(alg, raw)
	case *rsa.PublicKey:
		return rsaKey(pk)
	}
	return nil, &Error{Reason: ReasonUnsupportedAlg, Detail: "public key type not supported"}
}
