package sigalg

import "strings"

// Alg names a signature algorithm. The values are the canonical spellings.
type Alg string

// Supported algorithms.
const (
	MLDSA44 Alg = "ML-DSA-44"
	MLDSA65 Alg = "ML-DSA-65"
	MLDSA87 Alg = "ML-DSA-87"
	Ed25519 Alg = "Ed25519"
	ES256   Alg = "ES256"
	ES384   Alg = "ES384" // ECDSA P-384 with SHA-384; no receipt names it yet, so ParseAlg does not either
)

// spellings maps lowercased input to the algorithm. They are the spellings
// seen in the corpus ("Ed25519", "ed25519", "EdDSA", "ML-DSA-65", "ES256")
// plus the obvious variants of the same names.
var spellings = map[string]Alg{
	"ml-dsa-44": MLDSA44, "mldsa44": MLDSA44, "ml_dsa_44": MLDSA44,
	"ml-dsa-65": MLDSA65, "mldsa65": MLDSA65, "ml_dsa_65": MLDSA65,
	"ml-dsa-87": MLDSA87, "mldsa87": MLDSA87, "ml_dsa_87": MLDSA87,
	"ed25519": Ed25519, "eddsa": Ed25519,
	"es256": ES256,
}

// ParseAlg maps a wire spelling to an Alg, ignoring ASCII case.
//
// Accepted: ML-DSA-44/65/87 (also "mldsa65", "ml_dsa_65"), "Ed25519",
// "EdDSA" (JOSE; Ed448 is not supported so EdDSA can only mean Ed25519) and
// "ES256". Round-3 "Dilithium2/3/5" names are refused on purpose: FIPS 204
// changed the hashing, so a Dilithium3 signature does not verify as
// ML-DSA-65 and accepting the name would only produce confusing failures.
// Proof-suite names such as "Ed25519Signature2020" are not algorithms; the
// dialect that uses them maps them itself.
func ParseAlg(s string) (Alg, error) {
	if a, ok := spellings[strings.ToLower(s)]; ok {
		return a, nil
	}
	return "", &Error{Reason: ReasonUnsupportedAlg, Detail: "algorithm " + quote(s)}
}

// String returns the canonical spelling.
func (a Alg) String() string { return string(a) }

// Valid reports whether a is one of the supported constants.
func (a Alg) Valid() bool { return a.PublicKeySize() != 0 }

// PublicKeySize is the length of the raw public key encoding: the packed
// ML-DSA key, the 32-byte Ed25519 key, or the 65-byte uncompressed P-256
// point (97 bytes for P-384). It is 0 for an unknown Alg.
func (a Alg) PublicKeySize() int {
	switch a {
	case MLDSA44:
		return 1312
	case MLDSA65:
		return 1952
	case MLDSA87:
		return 2592
	case Ed25519:
		return 32
	case ES256:
		return 65
	case ES384:
		return 97
	}
	return 0
}

// SignatureSize is the length of a signature in its raw form (r||s for
// ES256 and ES384). It is 0 for an unknown Alg.
func (a Alg) SignatureSize() int {
	switch a {
	case MLDSA44:
		return 2420
	case MLDSA65:
		return 3309
	case MLDSA87:
		return 4627
	case Ed25519:
		return 64
	case ES256:
		return 64
	case ES384:
		return 96
	}
	return 0
}

// AlgForKeySize guesses the algorithm of a bare key from its length, for
// key files that carry no alg (hex key maps). A 65-byte key counts as ES256
// only if it starts with 0x04, the uncompressed-point tag.
func AlgForKeySize(raw []byte) (Alg, bool) {
	switch len(raw) {
	case 32:
		return Ed25519, true
	case 1312:
		return MLDSA44, true
	case 1952:
		return MLDSA65, true
	case 2592:
		return MLDSA87, true
	case 65:
		if raw[0] == 0x04 {
			return ES256, true
		}
	case 97:
		if raw[0] == 0x04 {
			return ES384, true
		}
	}
	return "", false
}
