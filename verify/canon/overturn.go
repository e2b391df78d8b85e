package canon

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/receiptverify/verify/internal/limits"
)

// Overturn is the canonical JSON of the Overturn fingerprint, version 1
// ("overturn-v1"). The reference implementation is a TypeScript file that
// is not public, so the dialect follows the published contract and, where
// the contract is silent, JavaScript semantics:
//
//   - Reading is JSON.parse: a duplicate member name keeps its last value;
//     lone surrogates (\ud800) are accepted; nesting deeper than
//     limits.MaxDepth is refused.
//   - Every number is a double, as in JavaScript: 9007199254740993 becomes
//     9007199254740992, 1.0 becomes 1, -0 becomes 0, and a literal beyond
//     the double range (1e400) becomes Infinity, which is written as null.
//     Numbers print as ECMAScript's Number#toString (AppendES6): 1e+21,
//     1e-7, 0.00001, 1.5e+300.
//   - null members and null array items are dropped (undefined, functions
//     and symbols cannot occur in parsed JSON). A number that overflows to
//     Infinity is NOT dropped: it is not null when the filter runs, only
//     when it is printed, as in an implementation that skips
//     `v === null || v === undefined` and then serializes numbers with
//     JSON.stringify (Infinity -> "null"). So {"a":1e400} is {"a":null},
//     and [1e400] is [null]. A null top-level value prints as null.
//   - String values are trimmed with String.prototype.trim, whose white
//     space is exactly U+0009-U+000D, U+0020, U+00A0, U+1680,
//     U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 and U+FEFF.
//     U+0085 and U+180E are not white space and are kept. Member names
//     are not trimmed (the contract says strings, and a name is written
//     from Object.keys, not as a value).
//   - Strings and names are escaped as JSON.stringify does: \" \\ \b \f
//     \n \r \t, \u00xx for other controls, a lone surrogate as \udxxx,
//     everything else (all non-ASCII, U+2028, U+2029, DEL) raw.
//   - Member names are sorted by Unicode code point, recursively. The
//     contract says "sorted by code point" in so many words, so it is not
//     a point on which JavaScript fills a silence; Python's sorted(), the
//     mirror SDK's natural choice, gives the same order. A reference that
//     used JavaScript's default Object.keys(o).sort() would compare UTF-16
//     code units instead; the two orders differ only when, at the first
//     differing character, one name has a character above U+FFFF and the
//     other one in U+E000-U+FFFF ("😀" sorts after "＠" here, before it in
//     UTF-16 order). Tests pin this case.
//   - Arrays keep their order; true and false print as such; no white
//     space anywhere.
//
// The dialect never rejects a parsed document for its content: every JSON
// value has an Overturn canonical form.
func Overturn() Dialect { return Dialect{overturn} }

var overturn = &dialect{
	name: "overturn-v1",
	doc:  "Overturn fingerprint v1: JSON.parse input, doubles, nulls dropped, strings trimmed, code-point member order",
	parse: ParseOptions{
		MaxDepth:            limits.MaxDepth,
		Duplicates:          LastDuplicateWins,
		AllowLoneSurrogates: true,
	},
	w: writer{
		order:      compareCodePoints,
		name:       appendStringJS,
		str:        appendStringJS,
		number:     appendNumberOverturn,
		dropNulls:  true,
		trimString: trimJS,
	},
}

func init() { register(overturn, "overturn") }

func appendStringJS(dst []byte, s string) ([]byte, error) {
	dst, _ = appendQuotedJS(dst, s, false)
	return dst, nil
}

// appendNumberOverturn reads lit as JavaScript's Number() would and prints
// it as Number#toString; NaN and the infinities print as null, as
// JSON.stringify prints them.
func appendNumberOverturn(dst []byte, lit string) ([]byte, error) {
	f, err := strconv.ParseFloat(lit, 64)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, "null"...), nil
	}
	if err != nil {
		return nil, &Error{Reason: ReasonSyntax, Offset: -1, Detail: "number literal " + strconv.Quote(lit) + " is not a number"}
	}
	return AppendES6(dst, f), nil
}

// trimJS removes leading and trailing white space as JavaScript's
// String.prototype.trim does (WhiteSpace and LineTerminator of ECMA-262):
// U+0009-U+000D, U+0020, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
// U+202F, U+205F, U+3000 and U+FEFF. It accepts WTF-8 (a lone surrogate
// is not white space) and returns a substring of s.
func trimJS(s string) string {
	if s == "" {
		return s
	}
	// Fast path: ASCII non-space at both ends.
	if first, last := s[0], s[len(s)-1]; first < utf8.RuneSelf && last < utf8.RuneSelf && !isJSSpace(rune(first)) && !isJSSpace(rune(last)) {
		return s
	}
	start := 0
	for start < len(s) {
		r, n := decodeWTF8(s, start)
		if !isJSSpace(r) {
			break
		}
		start += n
	}
	end := start
	for i := start; i < len(s); {
		r, n := decodeWTF8(s, i)
		i += n
		if !isJSSpace(r) {
			end = i
		}
	}
	return s[start:end]
}

// isJSSpace reports whether r is white space or a line terminator to
// ECMA-262 (what String.prototype.trim and the \s class remove).
func isJSSpace(r rune) bool {
	switch {
	case r <= 0x20:
		return r == ' ' || (r >= '\t' && r <= '\r')
	case r < 0xA0:
		return false
	}
	switch r {
	case 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}
