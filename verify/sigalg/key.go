package sigalg

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/asn1"
	"fmt"
	"math/big"
	"sync"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
	"github.com/cloudflare/circl/sign/mldsa/mldsa87"
)

// PublicKey is a parsed, immutable verification key. Its methods are safe
// for concurrent use.
type PublicKey struct {
	alg Alg
	raw []byte
	// expand makes the verifying function. For ML-DSA that derives the
	// key's matrix (about 40 KB, and about twice a verify's time): it runs
	// once, on the key's first use, so that a key directory of thousands
	// of keys costs time and memory only for the keys its receipts use.
	expand    func() (verifyFunc, error)
	once      sync.Once
	verify    verifyFunc
	expandErr error
}

type verifyFunc func(msg, sig []byte) bool

// NewPublicKey parses raw, the key's native encoding for alg: the packed
// ML-DSA public key, the 32-byte Ed25519 key, or the 65-byte uncompressed
// P-256 point 0x04||X||Y. A P-256 point is checked here; an ML-DSA key of
// the right size is valid whatever its bytes, and is expanded on first use.
func NewPublicKey(alg Alg, raw []byte) (*PublicKey, error) {
	want := alg.PublicKeySize()
	if want == 0 {
		return nil, &Error{Reason: ReasonUnsupportedAlg, Detail: "algorithm " + quote(string(alg))}
	}
	if len(raw) != want {
		return nil, &Error{Reason: ReasonMalformedKey, Alg: alg,
			Err: &SizeError{What: "public key", Alg: alg, Got: len(raw), Want: want}}
	}
	k := &PublicKey{alg: alg, raw: bytes.Clone(raw)}
	switch alg {
	case MLDSA44:
		k.expand = func() (verifyFunc, error) {
			pk := new(mldsa44.PublicKey)
			err := pk.UnmarshalBinary(k.raw)
			return func(msg, sig []byte) bool { return mldsa44.Verify(pk, msg, nil, sig) }, err
		}
	case MLDSA65:
		k.expand = func() (verifyFunc, error) {
			pk := new(mldsa65.PublicKey)
			err := pk.UnmarshalBinary(k.raw)
			return func(msg, sig []byte) bool { return mldsa65.Verify(pk, msg, nil, sig) }, err
		}
	case MLDSA87:
		k.expand = func() (verifyFunc, error) {
			pk := new(mldsa87.PublicKey)
			err := pk.UnmarshalBinary(k.raw)
			return func(msg, sig []byte) bool { return mldsa87.Verify(pk, msg, nil, sig) }, err
		}
	case Ed25519:
		pk := ed25519.PublicKey(k.raw)
		k.expand = func() (verifyFunc, error) {
			return func(msg, sig []byte) bool { return ed25519.Verify(pk, msg, sig) }, nil
		}
	case ES256:
		pk, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), k.raw)
		if err != nil {
			return nil, &Error{Reason: ReasonMalformedKey, Alg: alg, Detail: "not a P-256 point", Err: err}
		}
		k.expand = func() (verifyFunc, error) {
			return func(msg, sig []byte) bool {
				h := sha256.Sum256(msg)
				r := new(big.Int).SetBytes(sig[:32])
				s := new(big.Int).SetBytes(sig[32:])
				return ecdsa.Verify(pk, h[:], r, s)
			}, nil
		}
	case ES384:
		verify, err := ecdsaVerifier(alg, k.raw)
		if err != nil {
			return nil, err
		}
		k.expand = func() (verifyFunc, error) { return verify, nil }
	}
	return k, nil
}

// PublicKeyFromJWK builds a key from the members of a JWK: kty "OKP" with
// crv "Ed25519" and x, or kty "EC" with crv "P-256", x and y. x and y are
// base64url without padding, as RFC 7518 requires; padded or standard
// alphabet values are accepted too, since key files are written by hand.
func PublicKeyFromJWK(kty, crv, x, y string) (*PublicKey, error) {
	switch {
	case kty == "OKP" && crv == "Ed25519":
		xb, err := DecodeBase64Any(x)
		if err != nil {
			return nil, &Error{Reason: ReasonMalformedKey, Alg: Ed25519, Detail: "jwk x", Err: err}
		}
		return NewPublicKey(Ed25519, xb)
	case kty == "EC" && crv == "P-256":
		xb, err := DecodeBase64Any(x)
		if err != nil {
			return nil, &Error{Reason: ReasonMalformedKey, Alg: ES256, Detail: "jwk x", Err: err}
		}
		yb, err := DecodeBase64Any(y)
		if err != nil {
			return nil, &Error{Reason: ReasonMalformedKey, Alg: ES256, Detail: "jwk y", Err: err}
		}
		if len(xb) != 32 || len(yb) != 32 {
			return nil, &Error{Reason: ReasonMalformedKey, Alg: ES256, Detail: "jwk x and y must be 32 bytes each"}
		}
		return NewPublicKey(ES256, append(append([]byte{0x04}, xb...), yb...))
	}
	return nil, &Error{Reason: ReasonUnsupportedAlg,
		Detail: "jwk kty " + quote(kty) + " crv " + quote(crv) + " (supported: OKP/Ed25519, EC/P-256)"}
}

// Alg returns the key's algorithm.
func (k *PublicKey) Alg() Alg { return k.alg }

// Bytes returns a copy of the raw key encoding given to NewPublicKey.
func (k *PublicKey) Bytes() []byte { return bytes.Clone(k.raw) }

// Equal reports whether two keys have the same algorithm and bytes.
func (k *PublicKey) Equal(o *PublicKey) bool {
	return k != nil && o != nil && k.alg == o.alg && bytes.Equal(k.raw, o.raw)
}

// Verify checks sig over msg. It returns nil on success, an *Error with
// ReasonMalformedSignature if sig has the wrong length, and ReasonBadSignature
// otherwise. msg is the exact signing input; nothing is hashed or wrapped
// here except what the algorithm itself defines (SHA-256 for ES256).
func (k *PublicKey) Verify(msg, sig []byte) error {
	if want := k.alg.SignatureSize(); len(sig) != want {
		return &Error{Reason: ReasonMalformedSignature, Alg: k.alg,
			Err: &SizeError{What: "signature", Alg: k.alg, Got: len(sig), Want: want}}
	}
	k.once.Do(func() { k.verify, k.expandErr = k.expand() })
	if k.expandErr != nil {
		return &Error{Reason: ReasonMalformedKey, Alg: k.alg, Err: k.expandErr}
	}
	if !k.verify(msg, sig) {
		return &Error{Reason: ReasonBadSignature, Alg: k.alg}
	}
	return nil
}

// VerifyES256DER checks an ES256 signature given in ASN.1 DER
// (SEQUENCE { r INTEGER, s INTEGER }). It exists for producers that emit
// X.509-style signatures; the JOSE/raw form goes through Verify. Trailing
// bytes and non-minimal encodings are refused.
func (k *PublicKey) VerifyES256DER(msg, der []byte) error {
	if k.alg != ES256 {
		return &Error{Reason: ReasonUnsupportedAlg, Alg: k.alg, Detail: "DER signatures exist only for ES256"}
	}
	var rs struct{ R, S *big.Int }
	rest, err := asn1.Unmarshal(der, &rs)
	if err != nil || len(rest) != 0 || rs.R.Sign() <= 0 || rs.S.Sign() <= 0 ||
		rs.R.BitLen() > 256 || rs.S.BitLen() > 256 {
		return &Error{Reason: ReasonMalformedSignature, Alg: k.alg, Detail: "not a DER ECDSA signature"}
	}
	if re, err := asn1.Marshal(rs); err != nil || !bytes.Equal(re, der) {
		return &Error{Reason: ReasonMalformedSignature, Alg: k.alg, Detail: "non-canonical DER"}
	}
	raw := make([]byte, 64)
	rs.R.FillBytes(raw[:32])
	rs.S.FillBytes(raw[32:])
	return k.Verify(msg, raw)
}

// String is for diagnostics only.
func (k *PublicKey) String() string {
	return fmt.Sprintf("%s public key (%d bytes)", k.alg, len(k.raw))
}
