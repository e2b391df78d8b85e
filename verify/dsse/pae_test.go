package dsse_test

import (
	"testing"

	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"

	"github.com/receiptverify/verify/verify/dsse"
)

// The encoding is the reference implementation's, byte for byte.
func TestPAEMatchesReference(t *testing.T) {
	for _, c := range []struct{ typ, body string }{
		{"", ""},
		{"application/vnd.in-toto+json", `{"_type":"https://in-toto.io/Statement/v1"}`},
		{"http://example.com/HelloWorld", "hello world"},
		{"t", "\x00 é\n"},
	} {
		got, want := dsse.PAE(c.typ, []byte(c.body)), ssldsse.PAE(c.typ, []byte(c.body))
		if string(got) != string(want) {
			t.Errorf("PAE(%q, %q) = %q, reference %q", c.typ, c.body, got, want)
		}
	}
}
