package stream

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/verify"
)

// memSource is a Source over bytes in memory.
func memSource(name string, data []byte, lines bool) Source {
	return Source{Name: name, Lines: lines, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}}
}

// corpusVerifier is the verifier of a conformance case's directory.
func corpusVerifier(tb testing.TB, dir string) *verify.Verifier {
	tb.Helper()
	v, _, err := receiptgen.LoadVerifier(dir, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		tb.Fatal(err)
	}
	return v
}
