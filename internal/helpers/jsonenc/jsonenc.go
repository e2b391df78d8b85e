// Package jsonenc appends JSON string text exactly as encoding/json writes
// it, without reflection. The receipts stream and the analytics spool
// write one object per receipt, and reflection-based encoding cost about
// as much as a signature check there.
package jsonenc

import (
	"math/bits"
	"unicode/utf8"
	"unsafe"

	"github.com/receiptverify/verify/internal/helpers/jsonscan"
)

const (
	hexDigits = "0123456789abcdef"
	ones      = 0x0101010101010101
)

// AppendString appends s as a quoted JSON string; see AppendChars.
func AppendString[T ~string | ~[]byte](dst []byte, s T, escapeHTML bool) []byte {
	dst = append(dst, '"')
	dst = AppendChars(dst, s, escapeHTML)
	return append(dst, '"')
}

// AppendChars appends text escaped as the inside of a JSON string, as
// encoding/json does: \" \\ \b \f \n \r \t, \u00xx for other controls,
// <, > and & as \u003c, \u003e, \u0026 when escapeHTML is set (the
// json.Encoder default), U+2028 and U+2029 escaped, and each invalid UTF-8
// byte as \ufffd.
func AppendChars[T ~string | ~[]byte](dst []byte, text T, escapeHTML bool) []byte {
	// A []byte's header begins as a string's does, so either is read
	// here as a string without a copy.
	s := *(*string)(unsafe.Pointer(&text))
	start := 0
	for i := 0; i < len(s); {
		// Plain runs (most of the text) are passed in bulk; a byte
		// that needs care is then handled on its own.
		run := i
		i = jsonscan.SkipPlain(s, run)
		if escapeHTML {
			i = skipNotHTML(s, run, i)
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default: // other controls, and '<', '>', '&' when escaping HTML
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// skipNotHTML returns the index of the first '<', '>' or '&' in s[i:end],
// or end: s[i:end] is plain ASCII (jsonscan.SkipPlain), so each byte's
// low seven bits are the whole byte and the sums below cannot carry.
func skipNotHTML(s string, i, end int) int {
	for ; i+8 <= end; i += 8 {
		x := jsonscan.LE64(s[i : i+8])
		other := ((x ^ '<'*ones) + 0x7f*ones) & ((x ^ '>'*ones) + 0x7f*ones) & ((x ^ '&'*ones) + 0x7f*ones)
		if m := ^other & jsonscan.Highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < end; i++ {
		if c := s[i]; c == '<' || c == '>' || c == '&' {
			return i
		}
	}
	return end
}
