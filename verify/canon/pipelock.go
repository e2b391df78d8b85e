package canon

import (
	"strconv"
	"unicode/utf8"

	"github.com/receiptverify/verify/internal/limits"
)

// Pipelock is the canonical form pipelock's Go reference signs
// (internal/contract/canonicalize.go): RFC 8785's shape, but member names
// in code-point order (Go's sort of strings), strings quoted by Go's
// encoding/json, which also escapes <, >, & as \u003c, \u003e, \u0026 and
// U+2028, U+2029 as \u2028, \u2029, and integers only, written as given
// (a fraction or an exponent is refused, as the reference refuses floats).
// The reference also puts every string in Unicode NFC first; a Value must
// be normalized before it is written in this dialect.
func Pipelock() Dialect { return Dialect{pipelock} }

var pipelock = &dialect{
	name:  "pipelock",
	doc:   "pipelock Go reference: code-point member order, Go encoding/json escapes (& < > U+2028 U+2029), integers only",
	parse: ParseOptions{MaxDepth: limits.MaxDepth, Duplicates: RejectDuplicates},
	w: writer{
		order:  compareCodePoints,
		name:   appendStringGo,
		str:    appendStringGo,
		number: appendNumberInt64,
	},
}

func init() { register(pipelock) }

// appendStringGo quotes s as Go's json.Marshal does with HTML escaping on
// (its default): \" \\ \b \f \n \r \t, \u00xx for the other controls and
// for < > &, \u2028 and \u2029, every other character raw. A lone
// surrogate, which Go would have replaced by U+FFFD before signing, is
// refused.
func appendStringGo(dst []byte, s string) ([]byte, error) {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			if c == '<' || c == '>' || c == '&' {
				dst = appendUnicodeEscape(dst, rune(c))
			} else {
				dst = appendShortEscape(dst, c)
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return nil, &Error{Reason: ReasonLoneSurrogate, Offset: -1, Detail: "string holds a lone surrogate or invalid UTF-8"}
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = appendUnicodeEscape(dst, r)
			start = i + n
		}
		i += n
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), nil
}

// appendNumberInt64 writes an integer literal that fits in 64 bits as it
// is, as the reference's json.Number.Int64 check lets through; anything
// else cannot be signed.
func appendNumberInt64(dst []byte, lit string) ([]byte, error) {
	if _, err := strconv.ParseInt(lit, 10, 64); err != nil {
		return nil, &Error{Reason: ReasonUnsupported, Offset: -1, Detail: "number " + lit + " is not a 64-bit integer: the pipelock reference signs integers only"}
	}
	return append(dst, lit...), nil
}
