package canon

import (
	"math"
	"strconv"
	"strings"
)

// AppendES6 writes f as ECMAScript's Number.prototype.toString does: the
// shortest digits that round-trip, plain notation for 1e-6 <= |f| < 1e21,
// otherwise d.ddde±N with no exponent padding; -0 prints as 0. The caller
// rejects NaN and infinities first.
func AppendES6(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if abs := math.Abs(f); abs >= 1e-6 && abs < 1e21 {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	// Go pads the exponent to two digits (1e-07); ECMAScript does not.
	if n := len(dst); dst[n-2] == '0' && (dst[n-3] == '-' || dst[n-3] == '+') {
		dst[n-2] = dst[n-1]
		dst = dst[:n-1]
	}
	return dst
}

// AppendPythonRepr writes f as Python's repr(float) does: the shortest
// round-trip digits, plain notation when the decimal exponent is in
// [-4, 16) with ".0" on whole values, otherwise d.ddde±XX with at least two
// exponent digits; -0.0 keeps its sign. The caller rejects NaN and
// infinities first.
func AppendPythonRepr(dst []byte, f float64) []byte {
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	var scratch [32]byte
	sci := strconv.AppendFloat(scratch[:0], f, 'e', -1, 64)
	e := strings.LastIndexByte(string(sci), 'e')
	exp, _ := strconv.Atoi(string(sci[e+1:]))
	if exp < -4 || exp >= 16 {
		return append(dst, sci...) // Go's 'e' layout is Python's: 1e+16, 1.5e-05
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	if strings.IndexByte(string(dst[start:]), '.') < 0 {
		dst = append(dst, ".0"...)
	}
	return dst
}

// isIntegerLiteral reports whether a JSON number literal has neither
// fraction nor exponent, which is what Python's json.loads turns into an int.
func isIntegerLiteral(lit string) bool {
	return !strings.ContainsAny(lit, ".eE")
}

// exceedsSafeInteger reports whether an integer literal's magnitude is above
// 2^53, past which a double cannot hold every integer.
func exceedsSafeInteger(lit string) bool {
	digits := strings.TrimPrefix(lit, "-")
	const max = "9007199254740992"
	return len(digits) > len(max) || (len(digits) == len(max) && digits > max)
}

// parseDouble converts a JSON number literal to the nearest double, as
// JavaScript's Number() and Python's float() do. A literal beyond the
// double range gives ±Inf and ok=false.
func parseDouble(lit string) (f float64, ok bool) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false // cannot happen for a literal the parser accepted
	}
	return f, !math.IsInf(f, 0)
}

// appendPythonInt writes an integer literal as Python's int(...) prints
// it: verbatim, except that -0 is 0.
func appendPythonInt(dst []byte, lit string) []byte {
	if lit == "-0" {
		return append(dst, '0')
	}
	return append(dst, lit...)
}

func nonFinite(lit string) *Error {
	return &Error{Reason: ReasonNonFinite, Offset: -1, Detail: "number " + lit + " is outside the range of a double"}
}
