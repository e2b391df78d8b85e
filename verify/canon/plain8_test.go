package canon

import (
	"math/rand/v2"
	"testing"
)

// TestPlain8 checks the eight-byte string scan against the byte-by-byte
// rule, on every byte value in every position and on random words.
func TestPlain8(t *testing.T) {
	t.Parallel()
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	check := func(b []byte) {
		want := true
		for _, c := range b {
			want = want && plain(c)
		}
		if got := plain8(string(b), 0); got != want {
			t.Fatalf("plain8(%q) = %v, want %v", b, got, want)
		}
	}
	for pos := range 8 {
		for c := range 256 {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			check(b)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		b := make([]byte, 8)
		for i := range b {
			b[i] = byte(r.IntN(256))
			if r.IntN(4) > 0 {
				b[i] = byte(0x20 + r.IntN(0x60))
			}
		}
		check(b)
	}
}
