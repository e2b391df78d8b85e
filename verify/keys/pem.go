package keys

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"strings"

	"github.com/receiptverify/verify/verify/sigalg"
)

// pemPublicKey reads the first PEM block of text as go-securesystemslib's
// decodeAndParsePEM does: PKCS #8 private key, PKCS #1 RSA private key,
// SubjectPublicKeyInfo, SEC 1 EC private key, in that order. Of a private
// key only the public half is kept. It also returns the parsed key, for
// the keyid.
func pemPublicKey(text string) (crypto.PublicKey, *sigalg.PublicKey, error) {
	block, _ := pem.Decode([]byte(text))
	if block == nil {
		return nil, nil, errors.New("no PEM block")
	}
	pub, err := parsePEMBlock(block.Bytes)
	if err != nil {
		return nil, nil, err
	}
	k, err := sigalg.PublicKeyFromCrypto(pub)
	return pub, k, err
}

func parsePEMBlock(der []byte) (crypto.PublicKey, error) {
	type signer interface{ Public() crypto.PublicKey }
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		if s, ok := k.(signer); ok {
			return s.Public(), nil
		}
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k.Public(), nil
	}
	if k, err := x509.ParsePKIXPublicKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k.Public(), nil
	}
	return nil, errors.New("PEM block is no PKCS #8, PKCS #1, SubjectPublicKeyInfo or SEC 1 key")
}

// loadPEM reads a PEM key file: each block one key, its kid the keyid
// go-securesystemslib's LoadKey gives the same PEM (see sslibKeyID), so an
// envelope its signer made names the key.
func (s *Snapshot) loadPEM(text []byte) {
	s.Format = FormatPEM
	for i := 0; ; i++ {
		block, rest := pem.Decode(text)
		if block == nil {
			if strings.TrimSpace(string(text)) != "" && i == 0 {
				s.Skipped = append(s.Skipped, &Error{Reason: ReasonMalformedKey, File: s.Name, Index: i, Detail: "not a PEM block"})
			}
			return
		}
		text = rest
		if i >= MaxEntriesPerFile {
			s.Skipped = append(s.Skipped, &Error{Reason: ReasonLimit, File: s.Name, Index: i, Detail: "more PEM blocks than the entry limit"})
			return
		}
		k, err := pemKey(s.Name, i, block)
		s.add(i, k, err)
	}
}

func pemKey(file string, i int, block *pem.Block) (*Key, *Error) {
	fail := func(r Reason, detail string, err error) (*Key, *Error) {
		return nil, &Error{Reason: r, File: file, Index: i, Detail: detail, Err: err}
	}
	pub, err := parsePEMBlock(block.Bytes)
	if err != nil {
		return fail(ReasonMalformedKey, "PEM block "+quote(block.Type), err)
	}
	keyType, scheme, public, err := loadKeyForm(pub)
	if err != nil {
		return fail(ReasonUnsupportedAlg, "PEM block "+quote(block.Type), err)
	}
	key := &Key{
		KID:    sslibKeyID(keyType, scheme, public, defaultKeyIDHashAlgorithms),
		Status: StatusActive, Source: Source{File: file, Index: i, Format: FormatPEM},
	}
	k, err := sigalg.PublicKeyFromCrypto(pub)
	if err != nil {
		// Kept under its kid (a P-224 or 1024-bit RSA key, say), so that a
		// signature by it is unsupported_alg, not unknown_key.
		return key, &Error{Reason: reasonOf(err), File: file, Index: i, ID: key.KID, Detail: "PEM block " + quote(block.Type), Err: err}
	}
	key.Public, key.Alg = k, k.Alg()
	return key, nil
}

// loadKeyForm is the keytype, scheme and keyval.public go-securesystemslib's
// LoadKey writes for a key: the public key as a trimmed SubjectPublicKeyInfo
// PEM (hex for Ed25519), and, for every ECDSA curve, the scheme
// ecdsa-sha2-nistp256.
func loadKeyForm(pub crypto.PublicKey) (keyType, scheme, public string, err error) {
	if ed, ok := pub.(ed25519.PublicKey); ok {
		return "ed25519", "ed25519", hex.EncodeToString(ed), nil
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", "", "", err
	}
	public = strings.TrimSpace(string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})))
	switch pub.(type) {
	case *rsa.PublicKey:
		return "rsa", "rsassa-pss-sha256", public, nil
	case *ecdsa.PublicKey:
		return "ecdsa", "ecdsa-sha2-nistp256", public, nil
	}
	return "", "", "", errors.New("key type LoadKey does not load")
}
