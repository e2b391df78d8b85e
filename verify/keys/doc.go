// Package keys loads key directory snapshots and resolves the key a receipt
// names. It takes file bytes, never paths, and reads no clock.
//
// # Key files
//
// [Load] detects the kind of a file from its content:
//
//   - Asqav JWKS ([FormatAsqavJWKS]): {"keys":[{kid, agent_id, issuer_id,
//     org_id, alg, public_key, status, revoked_at}]}, public_key in base64
//     (standard, padded, in practice). An entry whose public_key is not a
//     string is skipped and recorded, as the reference does.
//   - JWK set ([FormatJWKSet]): {"keys":[{"kty":"OKP","crv":"Ed25519",
//     "x":...,"kid":...}]}, or kty "EC", crv "P-256" with x and y.
//   - Single JWK ([FormatJWK]): one such object.
//   - Hex key map ([FormatHexMap]): {"key_id": "hex"}, AERF and pipelock.
//   - DID map ([FormatDIDMap]): {"did:...": "hex"}, agentreceipts.
//   - did:key ([FormatDIDKey]): a JSON string or text lines of did:key ids.
//   - securesystemslib keys ([FormatSSLib]): {"keytype", "scheme", "keyval":
//     {"public"}, "keyid"}, alone, in a "keys" list, or as {"keys": {keyid:
//     key}}; the kid is keyid, or the member name, or as go-securesystemslib
//     computes it (SHA-256 of the canonical JSON of the key). A scheme this
//     package does not verify keeps the key's id with unsupported_alg.
//   - PEM ([FormatPEM]): SubjectPublicKeyInfo blocks (or private keys, of
//     which the public half is read, as go-securesystemslib's LoadKey
//     reads them); each key's kid is the keyid LoadKey computes.
//
// JWKs may also be kty "EC" on P-384 or P-521, and kty "RSA" with alg
// "PS256" (the only RSA scheme verified; another alg, or none, is
// unsupported_alg).
//
// In maps the algorithm follows from the key length (32 bytes Ed25519,
// 1312/1952/2592 ML-DSA-44/65/87, 65 bytes starting 0x04 ES256); a value may
// also be a did:key.
//
// A bad entry never fails its file: it lands in [Snapshot.Skipped] with its
// reason, and loading goes on. Duplicate member names in any JSON object
// fail the file, because encoding/json would silently keep the last one.
//
// # Resolution
//
// A [Directory] merges snapshots in order and answers [Directory.ResolveAsqav]
// (the Asqav reference order, which the multi-key vector depends on),
// [Directory.ByID] and [Directory.ResolveDID]. The earliest match wins.
//
// # One key id, one key
//
// Entries naming the same kid, in one file or in several, are one key, so
// the order of files or entries never decides a verdict:
//
//   - they must give the same public key (algorithm and bytes), and the
//     same agent_id, issuer_id and org_id where both give one; otherwise
//     [NewDirectory] fails with [ReasonConflict], naming both entries;
//   - their statuses combine to the strictest (compromised, revoked,
//     suspended, an unknown status, active) and their revoked_at to the
//     earliest given (an entry without one adds no time), so a snapshot
//     plus a later revocation list is the revocation. An entry whose key did not load (a revocation list that
//     gives only kid, status and revoked_at) adds its status and ids.
//
// [Directory.Combined] lists the kids whose entries gave different states,
// for a warning.
//
// # Errors
//
// Every error is an [*Error] carrying a [Reason]; use errors.Is with the
// Err... sentinels or errors.As. Message text is not an API. Limits are in
// limits.go.
package keys
