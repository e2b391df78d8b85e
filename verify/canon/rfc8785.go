package canon

import "github.com/receiptverify/verify/internal/limits"

// RFC8785 is the JSON Canonicalization Scheme (RFC 8785): member names in
// UTF-16 code-unit order, numbers as ECMAScript's Number::toString, strings
// with the minimal JSON escapes and everything else raw. Input is strict:
// duplicate names, invalid UTF-8, lone surrogates, integer literals beyond
// 2^53 in magnitude that a double cannot carry unchanged, and numbers beyond
// the double range are rejected, as is nesting deeper than limits.MaxDepth.
func RFC8785() Dialect { return Dialect{rfc8785} }

var rfc8785 = &dialect{
	name:  "rfc8785",
	doc:   "RFC 8785 JCS: UTF-16 member order, ECMAScript numbers, strict input",
	parse: ParseOptions{MaxDepth: limits.MaxDepth, Duplicates: RejectDuplicates},
	w: writer{
		order:  compareUTF16,
		name:   appendStringJCS,
		str:    appendStringJCS,
		number: appendNumberJCS,
	},
}

func init() { register(rfc8785, "jcs") }

func appendStringJCS(dst []byte, s string) ([]byte, error) {
	dst, ok := appendQuotedJS(dst, s, true)
	if !ok {
		return nil, &Error{Reason: ReasonLoneSurrogate, Offset: -1, Detail: "string holds a lone surrogate"}
	}
	return dst, nil
}

// appendNumberJCS writes a literal as RFC 8785 does, refusing an integer
// literal beyond 2^53 whose trip through a double changes it
// (9007199254740993 would silently become ...992). A large integer that
// survives the trip, such as 1000000010000000000, which is also what this
// dialect writes for that double, is kept, so canonical output always
// canonicalizes to itself.
func appendNumberJCS(dst []byte, lit string) ([]byte, error) {
	f, ok := parseDouble(lit)
	if !ok {
		return nil, nonFinite(lit)
	}
	start := len(dst)
	dst = AppendES6(dst, f)
	if isIntegerLiteral(lit) && exceedsSafeInteger(lit) && string(dst[start:]) != lit {
		return nil, &Error{Reason: ReasonUnsafeInteger, Offset: -1,
			Detail: "integer " + lit + " is beyond 2^53 and would change in a double (to " + string(dst[start:]) + "); carry it as a string"}
	}
	return dst, nil
}
