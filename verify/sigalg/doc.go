// Package sigalg verifies the signature algorithms that appear in agent
// tool-call receipts: ML-DSA-44/65/87 (FIPS 204), Ed25519, ECDSA ES256,
// ES384 and ES512 (P-256, P-384, P-521, each with its own hash) and PS256
// (RSASSA-PSS SHA-256 with a 32-byte salt), the last three as DSSE signers
// such as go-securesystemslib use them.
//
// # Keys
//
// A [PublicKey] is parsed once, in [NewPublicKey], [PublicKeyFromJWK],
// [PublicKeyFromRSAJWK] or [PublicKeyFromCrypto] (a parsed PEM key), and
// is immutable afterwards, so one key can verify from many goroutines. Parsing
// up front matters for ML-DSA: expanding the matrix A from the packed key
// costs about twice a verification, and a directory verifies many receipts
// with the same key.
//
// # Signatures
//
// ML-DSA is the pure variant with an empty context string, which is what the
// Asqav signer produces. ECDSA signatures are raw r||s, the JOSE form; ASN.1
// DER is only accepted by the explicitly named [PublicKey.VerifyECDSADER].
//
// # Encodings
//
// [DecodeBase64Any], [DecodeBase64], [DecodeHex], [DecodeHexN] and
// [DecodeMultibase] decode the text forms found on the wire. They reject
// whitespace and non-canonical trailing bits, so one value has one spelling.
//
// # Errors
//
// Every error is an [*Error] with a [Reason] from a closed set; compare with
// errors.Is against the Err... sentinels or errors.As. Message text is not an
// API. Size problems additionally carry a [*SizeError].
package sigalg
