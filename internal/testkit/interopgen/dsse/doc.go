// Package dsse makes the DSSE interop vectors, testdata/interop/dsse-attestation,
// with the reference implementation, go-securesystemslib: its signers sign
// the envelopes and its verifier gives the producer's verdict recorded in
// each expected.json. The asqav-* cases of that directory come from
// another producer (see its PROVENANCE.md); the test leaves them alone.
//
// The package is only its test. Without flags the test regenerates every
// vector in memory and fails unless the committed files match byte for
// byte; to write them again:
//
//	go test ./internal/testkit/interopgen/dsse -run TestVectors -write
//
// Keys come from fixed seeds, and the ECDSA signatures, which are
// randomized, draw on testing/cryptotest.SetGlobalRandom, so the output is
// the same on every run of one Go release.
package dsse

//go:generate go test -run ^TestVectors$ -write
