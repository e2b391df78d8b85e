// Package cosefile reads a file that holds one binary COSE_Sign1 message
// (a SCITT transparent statement, as a transparency service returns it:
// a .cose file) as the one receipt line the scitt-statement format reads,
// {"transparent_statement": "<base64url of the file's bytes>"}.
package cosefile

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fxamacker/cbor/v2"

	"github.com/receiptverify/verify/internal/limits"
)

// MaxBytes bounds a .cose file: its line, base64url, must fit in
// limits.MaxLineBytes with the member's name.
const MaxBytes = limits.MaxLineBytes/4*3 - 64

// IsName reports whether a file name is a .cose file's, gzipped or not.
func IsName(name string) bool {
	return strings.HasSuffix(strings.TrimSuffix(name, ".gz"), ".cose")
}

// The reasons a file is not read, for errors.Is.
var (
	ErrNotCOSE   = errors.New("not one COSE_Sign1 message")
	ErrTruncated = errors.New("a truncated file")
	ErrTooLarge  = errors.New("limit_exceeded")
)

// tag18 is the first byte of a tagged COSE_Sign1 message: CBOR tag 18.
const tag18 = 0xd2

// Line reads the whole of r, one COSE_Sign1 message, and returns its
// receipt line (with its newline). The error says why the bytes are not
// one: no CBOR tag 18 first, a CBOR item cut short (a truncated file),
// bytes after it, or more than MaxBytes.
func Line(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	switch {
	case err != nil:
		return nil, err
	case len(data) > MaxBytes:
		return nil, fmt.Errorf("a .cose file of more than %d bytes (%w)", MaxBytes, ErrTooLarge)
	case len(data) == 0:
		return nil, fmt.Errorf("an empty .cose file: %w", ErrNotCOSE)
	case data[0] != tag18:
		return nil, fmt.Errorf("%w: its first byte is 0x%02x, not CBOR tag 18 (0xd2)", ErrNotCOSE, data[0])
	}
	if err := cbor.Wellformed(data); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("the COSE_Sign1 message is cut short after %d bytes: %w", len(data), ErrTruncated)
		}
		return nil, fmt.Errorf("%w: %v", ErrNotCOSE, err)
	}
	line := make([]byte, 0, len(data)*4/3+32)
	line = append(line, `{"transparent_statement":"`...)
	line = base64.RawURLEncoding.AppendEncode(line, data)
	return append(line, "\"}\n"...), nil
}
