package canon

import "github.com/receiptverify/verify/internal/limits"

// RFC8785 is the JSON Canonicalization Scheme (RFC 8785): member names in
// UTF-16 code-unit order, numbers as ECMAScript's Number::toString, strings
// with the minimal JSON escapes and everything else raw. Input is strict:
// duplicate names, invalid UTF-8, lone surrogates, integer literals beyond
// 2^53 in magnitude (a double cannot carry them) and numbers beyond the
// double range are rejected, as is nesting deeper than limits.MaxDepth.
var RFC8785 = &Dialect{
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

func init() { register(RFC8785, "jcs") }

func appendStringJCS(dst []byte, s string) ([]byte, error) {
	if hasSurrogate(s) {
		return nil, &Error{Reason: ReasonLoneSurrogate, Offset: -1, Detail: "string holds a lone surrogate"}
	}
	return appendQuotedJS(dst, s), nil
}

func appendNumberJCS(dst []byte, lit string) ([]byte, error) {
	if isIntegerLiteral(lit) && exceedsSafeInteger(lit) {
		return nil, &Error{Reason: ReasonUnsafeInteger, Offset: -1,
			Detail: "integer " + lit + " is beyond 2^53 and cannot be canonicalized without loss; carry it as a string"}
	}
	f, ok := parseDouble(lit)
	if !ok {
		return nil, nonFinite(lit)
	}
	return AppendES6(dst, f), nil
}
