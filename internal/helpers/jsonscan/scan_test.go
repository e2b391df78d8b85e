package jsonscan

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSkipPlain checks the string scan against the byte-by-byte rule, with
// every byte value in every position of a word and on random text, short
// and long, so the marks of special8 are exact, not merely "some byte".
func TestSkipPlain(t *testing.T) {
	t.Parallel()
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	check := func(s string, from int) {
		want := from
		for want < len(s) && plain(s[want]) {
			want++
		}
		if got := SkipPlain(s, from); got != want {
			t.Fatalf("SkipPlain(%q, %d) = %d, want %d", s, from, got, want)
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
	random := func(n, oneIn int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(0x20 + r.IntN(0x60))
			if r.IntN(oneIn) == 0 {
				b[i] = byte(r.IntN(256))
			}
		}
		return string(b)
	}
	for range 200000 {
		s := random(r.IntN(40), 16)
		check(s, r.IntN(len(s)+1))
	}
	// Long runs, which go a window at a time: one special byte at every
	// position, then specials few and far apart.
	long := []byte(strings.Repeat("abcdefghijklmnopqrstuvwxyz012345", 40))
	for pos := range long {
		for _, c := range []byte{0x00, 0x1f, '"', '\\', 0x7f, 0x80, 0xed, 0xff} {
			b := slices.Clone(long)
			b[pos] = c
			check(string(b), pos%7)
		}
	}
	for range 20000 {
		s := random(r.IntN(3000), 1+r.IntN(2000))
		check(s, r.IntN(len(s)+1))
	}
}

// BenchmarkSkipPlain scans 4,412 bytes of base64 alphabet, as long as an
// ML-DSA-65 signature's text, then the closing quote: the longest plain
// run in a receipt, and one the parser meets in every line.
func BenchmarkSkipPlain(b *testing.B) {
	s := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNk+/==", 101)[:4412] + `"}`
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if SkipPlain(s, 0) != 4412 {
			b.Fatal("SkipPlain stopped short of the closing quote")
		}
	}
}
