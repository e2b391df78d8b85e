package keys

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/receiptverify/verify/verify/sigalg"
)

const didKeyPrefix = "did:key:"

// Multicodec codes of public key types. Only Ed25519 is supported; the
// others are named so that a did:key of a real but unsupported key type
// reports unsupported_alg rather than malformed_key.
const ed25519Codec = 0xed

var ed25519Multicodec = [2]byte{0xed, 0x01} // ed25519Codec as a varint

var otherKeyCodecs = map[uint64]string{
	0xe7: "secp256k1", 0xec: "X25519", 0xeb: "BLS12-381 G2", 0xea: "BLS12-381 G1",
	0x1200: "P-256", 0x1201: "P-384", 0x1202: "P-521", 0x1205: "RSA",
}

// ParseDIDKey decodes a did:key identifier, with or without a
// "#fragment", into its key. Only Ed25519 keys (multibase 'z' base58btc,
// multicodec 0xed01, 32 bytes) are supported; other key types give
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
	if codec != ed25519Codec {
		if name, ok := otherKeyCodecs[codec]; ok {
			return fail(ReasonUnsupportedAlg, name+" did:key; only Ed25519 is supported", nil)
		}
		return fail(ReasonMalformedKey, fmt.Sprintf("multicodec 0x%x is not a public key type", codec), nil)
	}
	if [2]byte(data[:2]) != ed25519Multicodec { // n == 2 unless non-minimal
		return fail(ReasonMalformedKey, "non-minimal multicodec varint", nil)
	}
	pub, err := sigalg.NewPublicKey(sigalg.Ed25519, data[n:])
	if err != nil {
		return fail(reasonOf(err), "", err)
	}
	return &Key{
		KID: id, Alg: sigalg.Ed25519, Status: StatusActive, Public: pub,
		Source: Source{File: id, Format: FormatDIDKey},
	}, nil
}

// DIDKey returns the did:key identifier of an Ed25519 key.
func DIDKey(pub *sigalg.PublicKey) (string, error) {
	if pub == nil || pub.Alg() != sigalg.Ed25519 {
		return "", &Error{Reason: ReasonUnsupportedAlg, Index: -1, Detail: "did:key is implemented for Ed25519 only"}
	}
	return didKeyPrefix + "z" + sigalg.EncodeBase58(append(ed25519Multicodec[:], pub.Bytes()...)), nil
}
