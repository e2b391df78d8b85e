package sigalg

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"math/big"
)

// pssOptions are go-securesystemslib's RSAPSSSignerVerifier's, on signing
// and verifying alike, and JOSE PS256's: a salt exactly as long as the
// SHA-256 hash. A signature made with another salt length does not verify.
var pssOptions = &rsa.PSSOptions{SaltLength: sha256.Size, Hash: crypto.SHA256}

// newRSAPublicKey parses a PKCS #1 DER RSAPublicKey as a PS256 key.
func newRSAPublicKey(raw []byte) (*PublicKey, error) {
	pk, err := x509.ParsePKCS1PublicKey(raw)
	if err != nil {
		return nil, &Error{Reason: ReasonMalformedKey, Alg: PS256, Detail: "not a PKCS #1 RSA public key", Err: err}
	}
	return rsaKey(pk)
}

// rsaKey checks an RSA key's size and makes the PS256 key.
func rsaKey(pk *rsa.PublicKey) (*PublicKey, error) {
	bits := pk.N.BitLen()
	if bits < MinRSABits || bits > MaxRSABits {
		return nil, &Error{Reason: ReasonUnsupportedAlg, Alg: PS256,
			Detail: "RSA key of " + itoa(bits) + " bits; supported: " + itoa(MinRSABits) + " to " + itoa(MaxRSABits)}
	}
	if pk.E < 3 || pk.E%2 == 0 {
		return nil, &Error{Reason: ReasonMalformedKey, Alg: PS256, Detail: "RSA public exponent " + itoa(pk.E)}
	}
	k := &PublicKey{alg: PS256, raw: x509.MarshalPKCS1PublicKey(pk), sigSize: pk.Size()}
	k.expand = func() (verifyFunc, error) {
		return func(msg, sig []byte) bool {
			h := sha256.Sum256(msg)
			return rsa.VerifyPSS(pk, crypto.SHA256, h[:], sig, pssOptions) == nil
		}, nil
	}
	return k, nil
}

// PublicKeyFromRSAJWK builds a PS256 key from an RSA JWK's n and e
// (base64url big-endian integers, RFC 7518 section 6.3.1). The JWK must say
// alg PS256: an RSA key alone does not tell PSS from PKCS #1 v1.5, and
// this tool verifies only the former.
func PublicKeyFromRSAJWK(n, e string) (*PublicKey, error) {
	nb, err := DecodeBase64Any(n)
	if err != nil || len(nb) == 0 || nb[0] == 0 {
		return nil, &Error{Reason: ReasonMalformedKey, Alg: PS256, Detail: "jwk n", Err: err}
	}
	eb, err := DecodeBase64Any(e)
	if err != nil || len(eb) == 0 || len(eb) > 4 || eb[0] == 0 {
		return nil, &Error{Reason: ReasonMalformedKey, Alg: PS256, Detail: "jwk e", Err: err}
	}
	exp := 0
	for _, b := range eb {
		exp = exp<<8 | int(b)
	}
	return rsaKey(&rsa.PublicKey{N: new(big.Int).SetBytes(nb), E: exp})
}
