package sigalg

// Limits on untrusted text handed to the decoders. They bound work, not
// meaning: the largest legitimate value is an ML-DSA-87 signature (4627
// bytes, about 6.2 kB as base64 or 9.3 kB as hex).
const (
	// MaxEncodedLen is the longest base64 or hex string the decoders accept.
	MaxEncodedLen = 64 << 10

	// MaxBase58Len is the longest base58btc string DecodeMultibase accepts.
	// Base58 decoding is quadratic; 8192 characters still covers a
	// multibase ML-DSA-87 key (about 3.6 kB encoded).
	MaxBase58Len = 8192
)

// RSA key sizes PS256 keys may have. Below MinRSABits a key is too weak to
// count as evidence; above MaxRSABits a verification costs more than any
// real key's (a 16384-bit one about a millisecond). A key outside is an
// algorithm this tool does not check: unsupported_alg.
const (
	MinRSABits = 2048
	MaxRSABits = 16384
)
