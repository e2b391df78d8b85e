package keys

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/receiptverify/verify/verify/sigalg"
)

const didKeyPrefix = "did:key:"

// Multicodec codes of public key types. Ed25519 (0xed), P-256 (0x1200)
// and P-384 (0x1201, both as compressed points) are supported; the others
// are named so that a did:key of a real but unsupported key type reports
// unsupported_alg rather than malformed_key.
const (
	ed25519Codec = 0xed
	p256Codec    = 0x1200
	p384Codec    = 0x1201
)

// didKeyAlgs maps the supported codecs to their algorithms.
var didKeyAlgs = map[uint64]sigalg.Alg{ed25519Codec: sigalg.Ed25519, p256Codec: sigalg.ES256, p384Codec: sigalg.ES384}

var otherKeyCodecs = map[uint64]string{
	0xe7: "secp256k1", 0xec: "X25519", 0xeb: "BLS12-381 G2", 0xea: "BLS12-381 G1",
	0x1202: "P-521", 0x1205: "RSA",
}

// ParseDIDKey decodes a did:key identifier, with or without a
// "#fragment", into its key: multibase 'z' (base58btc), a multicodec
// varint, then the key: 32 bytes of Ed25519 (z6Mk...), or a compressed
// P-256 (zDn...) or P-384 (z82...) point; other key types give
// ReasonUnsupportedAlg. If a fragment is present it must repeat the
// method-specific id, as did:key verification methods do.
//
// A did:key proves only that the signer holds the key it names; whether
// that identity is trusted is the caller's decision.
func ParseDIDKey(did string) (*Key, error) {
	fail := func(r Reason, detail string, err error) (*Key, error) {
		return nil, &Error{Reason: r, Index: -1, ID: did, Detail: detail, Err: err}
	}
	if len(did) > MaxIDBytes {
		return fail(ReasonLimit, "DID too long", nil)
	}
	id, frag, hasFrag := strings.Cut(did, "#")
	msid, ok := strings.CutPrefix(id, didKeyPrefix)
	if !ok {
		return fail(ReasonMalformedKey, "not a did:key", nil)
	}
	if hasFrag && frag != msid {
		return fail(ReasonMalformedKey, "fragment does not match the key", nil)
	}
	base, data, err := sigalg.DecodeMultibase(msid)
	if err != nil {
		return fail(ReasonMalformedKey, "", err)
	}
	if base != 'z' {
		return fail(ReasonMalformedKey, "did:key must be base58btc ('z')", nil)
	}
	codec, n := binary.Uvarint(data)
	if n <= 0 {
		return fail(ReasonMalformedKey, "no multicodec prefix", nil)
	}
	alg, ok := didKeyAlgs[codec]
	if !ok {
		if name, ok := otherKeyCodecs[codec]; ok {
			return fail(ReasonUnsupportedAlg, name+" did:key; only Ed25519, P-256 and P-384 are supported", nil)
		}
		return fail(ReasonMalformedKey, fmt.Sprintf("multicodec 0x%x is not a public key type", codec), nil)
	}
	if !bytes.Equal(data[:n], binary.AppendUvarint(nil, codec)) {
		return fail(ReasonMalformedKey, "non-minimal multicodec varint", nil)
	}
	var pub *sigalg.PublicKey
	if alg == sigalg.Ed25519 {
		pub, err = sigalg.NewPublicKey(alg, data[n:])
	} else {
		pub, err = sigalg.NewCompressedPublicKey(alg, data[n:])
	}
	if err != nil {
		return fail(reasonOf(err), "", err)
	}
	return &Key{
		KID: id, Alg: alg, Status: StatusActive, Public: pub,
		Source: Source{File: id, Format: FormatDIDKey},
	}, nil
}

// DIDKey returns the did:key identifier of an Ed25519, P-256 or P-384 key.
func DIDKey(pub *sigalg.PublicKey) (string, error) {
	if pub == nil {
		return "", &Error{Reason: ReasonUnsupportedAlg, Index: -1, Detail: "no key"}
	}
	for codec, alg := range didKeyAlgs {
		if alg != pub.Alg() {
			continue
		}
		raw := pub.Bytes()
		if alg != sigalg.Ed25519 {
			raw = pub.CompressedBytes()
		}
		return didKeyPrefix + "z" + sigalg.EncodeBase58(append(binary.AppendUvarint(nil, codec), raw...)), nil
	}
	return "", &Error{Reason: ReasonUnsupportedAlg, Index: -1, Detail: "did:key is implemented for Ed25519, P-256 and P-384 only"}
}
