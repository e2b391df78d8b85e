// Package dsse holds the DSSE v1 pre-authentication encoding, the bytes a
// DSSE envelope's signatures are made over. It is the one definition the
// verifier of DSSE receipts, the attestation of an audit and the test
// generators share, so that signing and checking cannot drift apart.
//
// Spec: https://github.com/secure-systems-lab/dsse/blob/master/protocol.md
package dsse

import "strconv"

// PAE is "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in
// ASCII decimal.
func PAE(payloadType string, body []byte) []byte {
	out := make([]byte, 0, len(payloadType)+len(body)+32)
	out = append(out, "DSSEv1 "...)
	out = strconv.AppendInt(out, int64(len(payloadType)), 10)
	out = append(out, ' ')
	out = append(out, payloadType...)
	out = append(out, ' ')
	out = strconv.AppendInt(out, int64(len(body)), 10)
	out = append(out, ' ')
	return append(out, body...)
}
