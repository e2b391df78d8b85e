package attest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/receiptverify/verify/verify/dsse"
	"github.com/receiptverify/verify/verify/keys"
)

// Envelope is a DSSE envelope as JSON carries it.
type Envelope struct {
	PayloadType string      `json:"payloadType"`
	Payload     string      `json:"payload"` // standard base64
	Signatures  []Signature `json:"signatures"`
}

// Signature is one signature of an envelope: ASN.1 DER for ECDSA, the 64
// bytes of RFC 8032 for Ed25519, in standard base64.
type Signature struct {
	KeyID string `json:"keyid"`
	Sig   string `json:"sig"`
}

// Signer signs statements with one private key.
type Signer struct {
	key   crypto.Signer
	keyID string
}

// KeyError is a key file that cannot serve: not PEM, not a key of a
// supported kind, or the wrong half.
type KeyError struct {
	File   string
	Detail string
}

func (e *KeyError) Error() string { return e.File + ": " + e.Detail }

// NewSigner reads a PEM private key (PKCS #8, or SEC 1 for ECDSA): Ed25519,
// or ECDSA on P-256, P-384 or P-521. Its keyid is the one
// go-securesystemslib's LoadKey gives the same PEM, which the public key
// file gives as well, so a verifier given several keys picks the right one.
func NewSigner(name string, pemData []byte) (*Signer, error) {
	block, _ := pem.Decode(pemData)
	if block == nil {
		return nil, &KeyError{name, "not a PEM file"}
	}
	var priv any
	var err error
	if priv, err = x509.ParsePKCS8PrivateKey(block.Bytes); err != nil {
		if priv, err = x509.ParseECPrivateKey(block.Bytes); err != nil {
			if _, perr := x509.ParsePKIXPublicKey(block.Bytes); perr == nil {
				return nil, &KeyError{name, "is a public key; signing needs the private key"}
			}
			return nil, &KeyError{name, fmt.Sprintf("PEM block %q is no PKCS #8 or SEC 1 private key", block.Type)}
		}
	}
	s := &Signer{}
	switch k := priv.(type) {
	case ed25519.PrivateKey:
		s.key = k
	case *ecdsa.PrivateKey:
		if curveHash(k.Curve) == 0 {
			return nil, &KeyError{name, "ECDSA curve " + k.Curve.Params().Name + " is not supported (P-256, P-384, P-521 are)"}
		}
		s.key = k
	default:
		return nil, &KeyError{name, fmt.Sprintf("a %T key; attestations are signed with Ed25519 or ECDSA", priv)}
	}
	snap, err := keys.Load(name, pemData)
	if err != nil || len(snap.Keys) == 0 {
		return nil, &KeyError{name, fmt.Sprintf("no keyid for the key: %v", err)}
	}
	s.keyID = snap.Keys[0].KID
	return s, nil
}

// KeyID is the keyid the signer writes.
func (s *Signer) KeyID() string { return s.keyID }

// Sign is the envelope of st, as indented JSON ending in a newline.
func (s *Signer) Sign(st *Statement) ([]byte, error) {
	body, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	sig, err := s.sign(dsse.PAE(PayloadType, body))
	if err != nil {
		return nil, err
	}
	env := Envelope{
		PayloadType: PayloadType,
		Payload:     base64.StdEncoding.EncodeToString(body),
		Signatures:  []Signature{{KeyID: s.keyID, Sig: base64.StdEncoding.EncodeToString(sig)}},
	}
	out, err := json.MarshalIndent(env, "", "  ")
	return append(out, '\n'), err
}

func (s *Signer) sign(msg []byte) ([]byte, error) {
	switch k := s.key.(type) {
	case ed25519.PrivateKey:
		return ed25519.Sign(k, msg), nil
	case *ecdsa.PrivateKey:
		return ecdsa.SignASN1(rand.Reader, k, digest(curveHash(k.Curve), msg))
	}
	return nil, errors.New("attest: unsupported key")
}

// curveHash is the hash ECDSA signs with on a curve, as
// go-securesystemslib and sigstore choose it; 0 for other curves.
func curveHash(c elliptic.Curve) crypto.Hash {
	switch c {
	case elliptic.P256():
		return crypto.SHA256
	case elliptic.P384():
		return crypto.SHA384
	case elliptic.P521():
		return crypto.SHA512
	}
	return 0
}

func digest(h crypto.Hash, msg []byte) []byte {
	switch h {
	case crypto.SHA384:
		d := sha512.Sum384(msg)
		return d[:]
	case crypto.SHA512:
		d := sha512.Sum512(msg)
		return d[:]
	}
	d := sha256.Sum256(msg)
	return d[:]
}
