package canon

import (
	"math/rand/v2"
	"testing"
)

// TestSkipPlain checks the eight-byte string scan against the byte-by-byte
// rule, with every byte value in every position of a word and on random
// text, so the marks of special8 are exact, not merely "some byte".
func TestSkipPlain(t *testing.T) {
	t.Parallel()
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	check := func(s string, from int) {
		want := from
		for want < len(s) && plain(s[want]) {
			want++
		}
		if got := skipPlain(s, from); got != want {
			t.Fatalf("skipPlain(%q, %d) = %d, want %d", s, from, got, want)
		}
	}
	for pos := range 8 {
		for c := range 256 {
			b := []byte("abcdefghijklmnop")
			b[pos] = byte(c)
			b[pos+3] = byte(255 - c) // a second special byte must not hide the first
			for from := range 4 {
				check(string(b), from)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(0x20 + r.IntN(0x60))
			if r.IntN(16) == 0 {
				b[i] = byte(r.IntN(256))
			}
		}
		check(string(b), r.IntN(len(b)+1))
	}
}
