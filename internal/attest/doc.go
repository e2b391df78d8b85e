// Package attest signs and checks the attestation of an audit: an in-toto
// Statement v1 in a DSSE envelope whose subjects are every file the audit
// read or wrote, by SHA-256, and whose predicate is in-toto's test result
// (docs/attestation.md says why that predicate and what its fields hold).
//
// Sign makes the envelope with an Ed25519 or ECDSA private key; Open
// checks its signature against a public key and returns the statement;
// Check compares each subject with the file of its name. Open and Check
// read no clock and touch no network, so a third party checks the result
// offline with the public key and the files.
package attest
