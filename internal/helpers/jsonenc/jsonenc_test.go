package jsonenc

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAsEncodingJSON pins AppendString to encoding/json, with and without
// HTML escaping, on every single byte, awkward runes, invalid UTF-8 and
// random byte strings, short and long (plain runs are passed a word and
// more at a time, so a special byte must be found at every position of a
// long run), for string and []byte input alike.
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
	const awkward = "\"\\<>&\x00\x1f\x7f\x80\xff\u00e9\u2028\u2029"
	for range 3000 {
		b := make([]byte, r.IntN(700))
		for i := range b {
			b[i] = byte(0x20 + r.IntN(0x5f))
		}
		for range r.IntN(4) {
			i := r.IntN(len(b) + 1)
			b = append(b[:i:i], append([]byte(awkward[r.IntN(len(awkward)):]), b[i:]...)...)
		}
		inputs = append(inputs, string(b))
	}
	for _, s := range inputs {
		checkAsEncodingJSON(t, s)
	}
}

// FuzzAsEncodingJSON pins AppendString to encoding/json on any text.
func FuzzAsEncodingJSON(f *testing.F) {
	f.Add("plain <&> \"quoted\" \\ \x00 \xff \u2028 é")
	f.Fuzz(checkAsEncodingJSON)
}

func checkAsEncodingJSON(t *testing.T, s string) {
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

// BenchmarkAppendString writes the strings of one receipt's JSON result:
// hex digests, identifiers, timestamps and an axis note.
func BenchmarkAppendString(b *testing.B) {
	texts := []string{"29364acef1212c3783e1457429649c8a0767f2784b399fe05cb00fdd936a2b12",
		"act_11106f2224a599b0b4dd", "agent-04-f4d80b", "org_1d0ce539e351", "sess_218a5b9fa5e73938",
		"mcp:tool_call", "files.write", "1e41df739c433ce3bf80c79220e7fc98", "2026-11-01T00:10:03.609697Z",
		"ML-DSA-65 signature verifies under key_17507053a62fab68 (directory)"}
	for _, html := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "html"}[html], func(b *testing.B) {
			var dst []byte
			for b.Loop() {
				dst = dst[:0]
				for _, s := range texts {
					dst = AppendString(dst, s, html)
				}
			}
		})
	}
}
