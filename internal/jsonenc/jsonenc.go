// Package jsonenc appends JSON string text exactly as encoding/json writes
// it, without reflection. The receipts stream and the analytics spool
// write one object per receipt, and reflection-based encoding cost about
// as much as a signature check there.
package jsonenc

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// plain[html][c] is true for the bytes that stand for themselves inside a
// JSON string: printable ASCII but '"' and '\\', and with HTML escaping on,
// also but '<', '>' and '&'.
var plain = func() (t [2][256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[0][c] = c != '"' && c != '\\'
		t[1][c] = t[0][c] && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendString appends s as a quoted JSON string; see AppendChars.
func AppendString[T ~string | ~[]byte](dst []byte, s T, escapeHTML bool) []byte {
	dst = append(dst, '"')
	dst = AppendChars(dst, s, escapeHTML)
	return append(dst, '"')
}

// AppendChars appends s escaped as the inside of a JSON string, as
// encoding/json does: \" \\ \b \f \n \r \t, \u00xx for other controls,
// <, > and & as \u003c, \u003e, \u0026 when escapeHTML is set (the
// json.Encoder default), U+2028 and U+2029 escaped, and each invalid UTF-8
// byte as \ufffd.
func AppendChars[T ~string | ~[]byte](dst []byte, s T, escapeHTML bool) []byte {
	safe := &plain[0]
	if escapeHTML {
		safe = &plain[1]
	}
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if safe[c] {
			i++
			continue
		}
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
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune([]byte(s[i:min(i+utf8.UTFMax, len(s))]))
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
