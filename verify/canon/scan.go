package canon

import "math/bits"

// Strings are scanned eight bytes at a time: most of a receipt's bytes sit
// in long strings of plain ASCII (base64 signatures, hex digests), which
// need no decoding and no escaping, so both the parser and the encoders
// skip such runs in one step and look at single bytes only where one
// needs care.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special8 marks each byte of x (eight bytes of text, the first in the low
// byte) that is not plain: a control character, '"', '\\', or a byte of a
// multi-byte UTF-8 sequence. A byte is marked by its high bit. Each byte is
// worked out on its own (the sums below cannot carry, as the high bits are
// cleared first), so the marks are exact and the lowest one is the first
// byte that is not plain.
func special8(x uint64) uint64 {
	low7 := x &^ highs
	ok := (low7 + (0x80-0x20)*ones) & // high bit set: 0x20 or above
		((low7 ^ '"'*ones) + 0x7f*ones) & // high bit set: not '"'
		((low7 ^ '\\'*ones) + 0x7f*ones) // high bit set: not '\\'
	return (x | ^ok) & highs
}

// skipPlain returns the index of the first byte of s at or after i that is
// not plain (see special8), or len(s) if there is none. Long runs go 32
// bytes a step: the four words' tests are independent, so the processor
// overlaps them. The step that finds a mark is redone word by word, and the
// lowest mark of the first marked word is the byte's exact index.
func skipPlain(s string, i int) int {
	for ; i+32 <= len(s); i += 32 {
		w := s[i : i+32]
		if special8(le64(w[0:8]))|special8(le64(w[8:16]))|special8(le64(w[16:24]))|special8(le64(w[24:32])) != 0 {
			break
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if m := special8(le64(s[i : i+8])); m != 0 {
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

// le64 reads the first eight bytes of s as a little-endian word (one load
// on the processors Go targets).
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
