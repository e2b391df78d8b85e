// Package jsonscan finds, a word (eight bytes) or more at a time, where
// JSON string text stops being plain. Most of a receipt's bytes sit in
// long strings of plain ASCII (base64 signatures, hex digests) that need
// no decoding and no escaping, so the parser and the encoders (canonical
// forms, the JSON output) pass such runs in bulk and look at single bytes
// only where one needs care.
package jsonscan

import (
	"math/bits"
	"strings"
)

const (
	ones = 0x0101010101010101
	// Highs has the high bit of every byte of a word set: a word whose
	// bytes are all ASCII has none of them.
	Highs = 0x8080808080808080
)

// special8 marks each byte of x (eight bytes of text, the first in the low
// byte) that is not plain: a control character, '"', '\\', or a byte of a
// multi-byte UTF-8 sequence. A byte is marked by its high bit. Each byte is
// worked out on its own (the sums below cannot carry, as the high bits are
// cleared first), so the marks are exact and the lowest one is the first
// byte that is not plain.
func special8(x uint64) uint64 {
	low7 := x &^ Highs
	ok := (low7 + (0x80-0x20)*ones) & // high bit set: 0x20 or above
		((low7 ^ '"'*ones) + 0x7f*ones) & // high bit set: not '"'
		((low7 ^ '\\'*ones) + 0x7f*ones) // high bit set: not '\\'
	return (x | ^ok) & Highs
}

// SkipPlain returns the index of the first byte of s at or after i that is
// not plain (see special8), or len(s) if there is none. Strings are tested
// 32 bytes a step, the four words' tests being independent so that the
// processor overlaps them; most strings end within a few steps. Past
// plainWindow bytes the run is long (a signature, a document body) and
// goes on a window at a time with plainRun. A window is never longer than
// what the call has passed already, so the bytes looked at past the result
// are at most as many as those before it, and callers that come back for
// the next run, an escape at a time, stay linear.
func SkipPlain(s string, i int) int {
	start := i
	for ; i+32 <= len(s) && i-start < plainWindow; i += 32 {
		w := s[i : i+32]
		if special8(LE64(w[0:8]))|special8(LE64(w[8:16]))|special8(LE64(w[16:24]))|special8(LE64(w[24:32])) != 0 {
			return firstSpecial(s, i)
		}
	}
	for i-start >= plainWindow && i+8 <= len(s) {
		w := s[i:min(i+plainWindow, len(s))]
		n := plainRun(w)
		i += n
		if n < len(w) {
			break
		}
	}
	return firstSpecial(s, i)
}

// firstSpecial is SkipPlain a word at a time: the lowest mark of the first
// marked word is the exact index.
func firstSpecial(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if m := special8(LE64(s[i : i+8])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// plainWindow is where a run counts as long, and the most one plainRun
// call looks at: long enough that its calls into strings.IndexByte cost
// little next to the bytes they pass.
const plainWindow = 256

// plainRun returns the length of a plain prefix of w, in whole 32-byte
// blocks; the first byte that is not plain lies at most 31 bytes past it.
// '"' and '\\' are found with strings.IndexByte, which is vectorised. The
// other bytes are tested with x | ^(x + 0x60 in each byte), which is not
// exact but is cheaper than special8 and right about whether a block needs
// care: a high bit is set where a byte is 0x80 or above, and, if every byte
// is ASCII (so no sum carries), exactly where a byte is below 0x20.
func plainRun(w string) int {
	if q := strings.IndexByte(w, '"'); q >= 0 {
		w = w[:q]
	}
	if b := strings.IndexByte(w, '\\'); b >= 0 {
		w = w[:b]
	}
	n := 0
	for ; n+32 <= len(w); n += 32 {
		q := w[n : n+32]
		a, b, c, d := LE64(q[0:8]), LE64(q[8:16]), LE64(q[16:24]), LE64(q[24:32])
		if (a|b|c|d|^(a+0x60*ones)|^(b+0x60*ones)|^(c+0x60*ones)|^(d+0x60*ones))&Highs != 0 {
			break
		}
	}
	return n
}

// LE64 reads the first eight bytes of s as a little-endian word (one load
// on the processors Go targets).
func LE64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
