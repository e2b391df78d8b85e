package canon

import (
	"unicode/utf8"

	"github.com/receiptverify/verify/internal/helpers/jsonscan"
)

// Strings inside a Value are UTF-8, except that a lone surrogate (which a
// dialect may allow, since JavaScript and Python accept "\ud800") is held as
// its WTF-8 three-byte form ED A0..BF xx. decodeWTF8 reads both.
func decodeWTF8(s string, i int) (r rune, size int) {
	c := s[i]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	if c == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
		return rune(c&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), 3
	}
	return utf8.DecodeRuneInString(s[i:])
}

func appendWTF8Surrogate(buf []byte, r rune) []byte {
	return append(buf, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}

// compareUTF16 orders strings by their UTF-16 code units, as RFC 8785
// section 3.2.3 requires. It differs from byte (code point) order only when
// one string has a character above U+FFFF where the other has one in
// U+E000..U+FFFF.
func compareUTF16(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] == b[j] && a[i] < utf8.RuneSelf {
			i++
			j++
			continue
		}
		ra, na := decodeWTF8(a, i)
		rb, nb := decodeWTF8(b, j)
		if ra != rb {
			ua, la := utf16Units(ra)
			ub, lb := utf16Units(rb)
			if ua != ub {
				return int(ua) - int(ub)
			}
			return int(la) - int(lb)
		}
		i += na
		j += nb
	}
	return (len(a) - i) - (len(b) - j)
}

// utf16Units returns the first UTF-16 code unit of r and the second (0 when
// r fits in one unit).
func utf16Units(r rune) (first, second uint16) {
	if r < 0x10000 {
		return uint16(r), 0
	}
	r -= 0x10000
	return uint16(0xD800 + r>>10), uint16(0xDC00 + r&0x3FF)
}

// compareCodePoints orders strings by code point. For UTF-8 (and WTF-8)
// that is plain byte order.
func compareCodePoints(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

const hexDigits = "0123456789abcdef"

// appendQuotedJS writes s as JSON.stringify and RFC 8785 do: the two-char
// escapes for " \ and \b \f \n \r \t, \u00xx for other controls, every other
// character raw, and a lone surrogate as \udxxx (well-formed JSON.stringify).
// Python's json.dumps with ensure_ascii=False escapes the same way.
//
// With strict set, a lone surrogate is refused instead and ok is false: an
// 0xED byte, not among the last two, followed by a byte of 0xA0 or above.
// The loop looks at every 0xED byte of s: it passes ASCII in runs and other
// bytes one at a time, except a well-formed character that 0xED starts,
// whose other two bytes are 0x80..0x9F and 0x80..0xBF.
func appendQuotedJS(dst []byte, s string, strict bool) (_ []byte, ok bool) {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		i = jsonscan.SkipPlain(s, i) // ASCII that is written as it is
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf && c != 0xED { // raw, as is all of UTF-8 but a surrogate
			i++
			continue
		}
		if c == 0xED {
			if strict && i+2 < len(s) && s[i+1] >= 0xA0 {
				return dst, false
			}
			r, n := decodeWTF8(s, i)
			if r < 0xD800 || r > 0xDFFF {
				i += n
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendUnicodeEscape(dst, r)
			i += n
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendShortEscape(dst, c)
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), true
}

// appendShortEscape escapes one ASCII byte that must not appear raw in a
// JSON string: the two-character forms where JSON has them, else \u00xx.
func appendShortEscape(dst []byte, c byte) []byte {
	switch c {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return appendUnicodeEscape(dst, rune(c))
}

// appendUnicodeEscape writes \uxxxx with lowercase hex for a BMP code unit.
func appendUnicodeEscape(dst []byte, u rune) []byte {
	return append(dst, '\\', 'u', hexDigits[u>>12&0xF], hexDigits[u>>8&0xF], hexDigits[u>>4&0xF], hexDigits[u&0xF])
}
