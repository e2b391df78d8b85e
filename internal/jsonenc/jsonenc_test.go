package jsonenc

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAsEncodingJSON pins AppendString to encoding/json, with and without
// HTML escaping, on every single byte, awkward runes, invalid UTF-8 and
// random byte strings, for string and []byte input alike.
func TestAsEncodingJSON(t *testing.T) {
	inputs := []string{"", "plain", `quote " backslash \ slash /`, "<script>&amp;</script>", "\u2028\u2029 é 😀",
		"bad \xff utf-8 \xe2\x82", "\xed\xa0\x80", "\x00\x01\x08\x09\x0a\x0c\x0d\x1f\x7f"}
	for c := range 256 {
		inputs = append(inputs, "a"+string([]byte{byte(c)})+"b")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		b := make([]byte, r.IntN(16))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		inputs = append(inputs, string(b))
	}
	for _, s := range inputs {
		for _, html := range []bool{false, true} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			wantText := bytes.TrimSuffix(want.Bytes(), []byte("\n"))
			if got := AppendString(nil, s, html); !bytes.Equal(got, wantText) {
				t.Fatalf("%q (html %v): got %s, want %s", s, html, got, wantText)
			}
			if got := AppendString(nil, []byte(s), html); !bytes.Equal(got, wantText) {
				t.Fatalf("%q (html %v): []byte input differs: %s", s, html, got)
			}
		}
	}
}
