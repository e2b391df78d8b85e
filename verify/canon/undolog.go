package canon

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/receiptverify/verify/internal/limits"
)

// The UndoLog call signature hashes a canonical JSON form of the tool
// arguments, and the producers of that form have disagreed over time. The
// five profiles below are each one producer, reproduced from its source:
//
//   - p3: the Python SDK's current canonical_json (undolog_sdk/signature.py).
//     The 96 official vectors are p3.
//   - r3: the Rust engine's current canonical_json (undolog-types effect.rs)
//     over a serde_json::Value read by serde_json::from_slice. The engine
//     writes the stored call_signature rows.
//   - p1: the Python SDK of release 0.1.0 (json.dumps per leaf).
//   - r1: the Rust engine of release 0.1.0 (serde_json::to_string per leaf).
//   - t2: the TypeScript SDK, @undolog/sdk 0.2.0 (sdks/undolog-ts
//     src/signature.ts canonicalJson), over the args as JSON.parse reads
//     them.
//
// All write no white space, keep array order, and let the last of two
// equal names win (json.loads, serde_json's Map, JSON.parse). The Python
// and Rust ones sort member names by code point (Python's sorted() on str
// and Rust's Ord for str agree on it); the TypeScript one by UTF-16 code
// unit (Array.prototype.sort on Object.keys), which differs when one name
// has a character above U+FFFF where another has one in U+E000..U+FFFF.

// UndoLogP3 is the current Python canonicalizer, used by the official
// vectors. Input as json.loads reads it: duplicate names (last wins) and
// lone surrogates ("\ud800") are accepted, nesting up to limits.MaxDepth
// (Python's own limit is its recursion limit, lower and version
// dependent). Output:
//   - names and strings alike: `\"` `\\` `\b` `\f` `\n` `\r` `\t`; other
//     characters below U+0020 as \u00xx; U+0020..U+007F raw (DEL too);
//     U+0080..U+FFFF as lowercase \uxxxx; characters above U+FFFF as a
//     lowercase surrogate pair. A lone surrogate is a code point below
//     U+FFFF to the SDK, so it is written \udxxx: the output stays ASCII.
//   - an integer literal (no fraction, no exponent) is a Python int:
//     written verbatim, except -0 which is 0. Python refuses integer
//     literals of more than 4300 digits, and so does this profile.
//   - any other number is parsed as the nearest double and written as
//     ECMAScript's Number::toString (AppendES6): 1.0 -> 1, -0.0 -> 0,
//     1e21 -> 1e+21, 1e-7 -> 1e-7, 0.000001 stays plain. A literal beyond
//     the double range (Python reads it as inf) is an error.
func UndoLogP3() Dialect { return Dialect{undoLogP3} }

var undoLogP3 = &dialect{
	name:  "undolog-p3",
	doc:   "UndoLog Python SDK (current, official vectors): ASCII-escaped, ECMAScript floats, exact ints",
	parse: ParseOptions{MaxDepth: limits.MaxDepth, Duplicates: LastDuplicateWins, AllowLoneSurrogates: true},
	w: writer{
		order:  compareCodePoints,
		name:   undologStringP3,
		str:    undologStringP3,
		number: undologNumberP3,
	},
}

// UndoLogR3 is the current Rust engine: serde_json 1.x with default
// features (no float_roundtrip, no arbitrary_precision) reads the args,
// then effect.rs canonical_json writes them. Input: duplicate names (last
// wins); lone surrogates and invalid UTF-8 are errors; at most 127 levels
// of nesting (serde_json's recursion limit of 128). Output:
//   - member names are NOT escaped at all: canonical_json writes
//     format!("\"{}\":{}", k, v), so a name holding `"`, `\` or a control
//     character comes out raw and the output is then not JSON. Non-ASCII
//     is raw UTF-8.
//   - strings as serde_json writes them: `\"` `\\` `\b` `\f` `\n` `\r` `\t`,
//     other controls as \u00xx lowercase, everything else raw (DEL and
//     non-ASCII included).
//   - numbers first go through serde_json's parser: an integer literal in
//     [-2^63, 2^64-1] stays exact and is written verbatim, except -0,
//     which serde_json reads as the float -0.0 (written 0). Every other
//     literal (fraction, exponent, or an integer outside that range)
//     becomes an f64 by serde_json's default algorithm, which is not
//     correctly rounded: the first 19 or 20 significant digits are kept
//     in a u64 (further ones are dropped, not rounded), converted to f64
//     and then multiplied or divided by a table power of ten. For example
//     9007199254740993.0 reads as 9007199254740994, not ...992. A literal
//     that overflows is an error (serde_json's NumberOutOfRange).
//   - the f64 is written by es6_format: 0 for ±0; for 1e-6 <= |x| < 1e21
//     Rust's Display (plain digits), else Rust's LowerExp with a '+'
//     inserted in a non-negative exponent (1e+21, 1.5e-7). The digits are
//     the shortest that round-trip, as ECMAScript's, except in exact
//     ties: when the double lies exactly halfway between the two closest
//     shortest candidates, Rust's Dragon4 (core::num::flt2dec) takes the
//     upper one where Go, Python and V8 take the even one
//     (1125899906842624.25 prints as 1125899906842624.3 here, ...4.2 in
//     p3). This is the "ties broken upward" of the notes; it was checked
//     against rustc 1.95. Ties need 17 significant digits and a double
//     that is not an integer, so they are rare.
func UndoLogR3() Dialect { return Dialect{undoLogR3} }

var undoLogR3 = &dialect{
	name:  "undolog-r3",
	doc:   "UndoLog Rust engine (current, writes stored rows): raw UTF-8, raw names, serde_json number reading",
	parse: ParseOptions{MaxDepth: undologSerdeMaxDepth, Duplicates: LastDuplicateWins},
	w: writer{
		order:  compareCodePoints,
		name:   undologRawName,
		str:    appendStringJCS,
		number: undologNumberR3,
	},
}

// UndoLogP1 is the Python SDK of release 0.1.0: member names written raw
// between quotes (f'"{k}":{v}'), every leaf through json.dumps(v,
// separators=(",", ":"), ensure_ascii=True). Input as UndoLogP3. Output:
//   - member names raw (non-ASCII as UTF-8, `"` and controls unescaped);
//     a name holding a lone surrogate is an error (the SDK's final
//     .encode("utf-8") raises).
//   - strings with ensure_ascii: as UndoLogP3 except that DEL (U+007F) is
//     escaped too, as \u007f.
//   - integer literals as UndoLogP3 (verbatim, -0 -> 0, at most 4300
//     digits).
//   - other numbers as Python's repr(float) (AppendPythonRepr): 1.0,
//     1e+21, 1e-07, 1e+16, 0.0001, -0.0 keeps its sign. json.dumps allows
//     NaN by default, so a literal beyond the double range, which
//     json.loads reads as inf, is written Infinity or -Infinity: the output
//     is then not JSON, but it is what was hashed.
func UndoLogP1() Dialect { return Dialect{undoLogP1} }

var undoLogP1 = &dialect{
	name:  "undolog-p1",
	doc:   "UndoLog Python SDK 0.1.0: raw names, ensure_ascii strings (DEL escaped), Python repr floats",
	parse: ParseOptions{MaxDepth: limits.MaxDepth, Duplicates: LastDuplicateWins, AllowLoneSurrogates: true},
	w: writer{
		order:  compareCodePoints,
		name:   undologRawName,
		str:    undologStringP1,
		number: undologNumberP1,
	},
}

// UndoLogR1 is the Rust engine of release 0.1.0: names raw as in
// UndoLogR3, every other leaf through serde_json::to_string. Input and
// strings as UndoLogR3; integers as UndoLogR3 (exact in [-2^63, 2^64-1]),
// except that -0, read as the float -0.0, is written -0.0. Floats are read
// by serde_json's default algorithm (see UndoLogR3) and written by the ryu
// crate: shortest round-trip digits (ties to even), plain when the decimal
// exponent is in [-5, 15] with ".0" on whole values (1.0, 1e15 ->
// 1000000000000000.0, 0.00001), otherwise d.ddde±N with no '+' and no
// padding (1e16, 1e21, 1e-6, 1.5e-7); -0.0 keeps its sign.
//
// The notes describe p1 and r1 together as "Python repr floats and
// ensure_ascii escaping". The 0.1.0 Rust source disagrees for r1: it calls
// serde_json::to_string, which writes ryu floats and raw UTF-8. This
// profile follows the source.
func UndoLogR1() Dialect { return Dialect{undoLogR1} }

var undoLogR1 = &dialect{
	name:  "undolog-r1",
	doc:   "UndoLog Rust engine 0.1.0: raw names, serde_json strings, ryu floats",
	parse: ParseOptions{MaxDepth: undologSerdeMaxDepth, Duplicates: LastDuplicateWins},
	w: writer{
		order:  compareCodePoints,
		name:   undologRawName,
		str:    appendStringJCS,
		number: undologNumberR1,
	},
}

// UndoLogT2 is the TypeScript SDK's canonicalJson (@undolog/sdk 0.2.0)
// applied to JSON.parse of the args. Input as UndoLogP3: duplicate names
// (last wins) and lone surrogates are accepted, as JSON.parse accepts them.
// Output:
//   - member names in UTF-16 code-unit order (Object.keys(obj).sort());
//   - names and strings as UndoLogP3 (escapeJsonString escapes every UTF-16
//     code unit of U+0080 and above as lowercase \uxxxx, so a character
//     above U+FFFF becomes its surrogate pair and a lone surrogate itself;
//     DEL stays raw);
//   - every number, integers included, as JSON.parse reads it, the nearest
//     double, written by JSON.stringify (AppendES6): 1.0 -> 1, -0 -> 0,
//     9007199254740993 -> 9007199254740992. A literal beyond the double
//     range is Infinity, which canonicalJson refuses ("Cannot serialise
//     infinite value"), and so does this profile.
func UndoLogT2() Dialect { return Dialect{undoLogT2} }

var undoLogT2 = &dialect{
	name:  "undolog-t2",
	doc:   "UndoLog TypeScript SDK 0.2.0: ASCII-escaped, UTF-16 member order, every number a double",
	parse: ParseOptions{MaxDepth: limits.MaxDepth, Duplicates: LastDuplicateWins, AllowLoneSurrogates: true},
	w: writer{
		order:  compareUTF16,
		name:   undologStringP3,
		str:    undologStringP3,
		number: undologNumberT2,
	},
}

func init() {
	register(undoLogP3, "undolog")
	register(undoLogR3)
	register(undoLogP1)
	register(undoLogR1)
	register(undoLogT2)
}

// undologSerdeMaxDepth is the deepest nesting serde_json accepts: its
// remaining_depth starts at 128 and the parse fails when it reaches 0.
const undologSerdeMaxDepth = 127

// undologPythonMaxIntDigits is CPython's default int_max_str_digits: json.loads
// refuses an integer literal with more digits.
const undologPythonMaxIntDigits = 4300

// undologStringP3 writes s as the current Python SDK's _escape_json_string.
func undologStringP3(dst []byte, s string) ([]byte, error) {
	return undologQuoteASCII(dst, s, false)
}

// undologStringP1 writes s as json.dumps(s, ensure_ascii=True).
func undologStringP1(dst []byte, s string) ([]byte, error) {
	return undologQuoteASCII(dst, s, true)
}

// undologQuoteASCII writes s with every non-ASCII character escaped as
// \uxxxx (lowercase; a surrogate pair above U+FFFF; a lone surrogate as
// itself). escapeDEL also escapes U+007F, as json.dumps does.
func undologQuoteASCII(dst []byte, s string, escapeDEL bool) ([]byte, error) {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' && (c != 0x7F || !escapeDEL) {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		if c < utf8.RuneSelf {
			dst = appendShortEscape(dst, c)
			i++
			start = i
			continue
		}
		r, n := decodeWTF8(s, i)
		if r == utf8.RuneError && n <= 1 {
			return nil, &Error{Reason: ReasonInvalidUTF8, Offset: -1, Detail: "string is not UTF-8"}
		}
		if r > 0xFFFF {
			hi, lo := utf16Units(r)
			dst = appendUnicodeEscape(dst, rune(hi))
			dst = appendUnicodeEscape(dst, rune(lo))
		} else {
			dst = appendUnicodeEscape(dst, r)
		}
		i += n
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), nil
}

// undologRawName writes a member name with no escaping at all, as Rust's
// format!("\"{}\"", k) and the 0.1.0 Python SDK's f'"{k}"' do. A name that
// is not UTF-8 (a lone surrogate) is an error: a Rust String cannot hold
// one (serde_json refuses to read it), and the Python SDK's final
// .encode("utf-8") raises on it.
func undologRawName(dst []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, &Error{Reason: ReasonLoneSurrogate, Offset: -1, Detail: "member name is not UTF-8 (lone surrogate)"}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), nil
}

// undologPythonInt writes an integer literal as Python's str(int(lit)).
func undologPythonInt(dst []byte, lit string) ([]byte, error) {
	digits := len(lit)
	if lit[0] == '-' {
		digits--
	}
	if digits > undologPythonMaxIntDigits {
		return nil, &Error{Reason: ReasonUnsupported, Offset: -1,
			Detail: "integer literal has " + strconv.Itoa(digits) + " digits; Python's json.loads refuses more than 4300"}
	}
	return appendPythonInt(dst, lit), nil
}

func undologNumberP3(dst []byte, lit string) ([]byte, error) {
	if isIntegerLiteral(lit) {
		return undologPythonInt(dst, lit)
	}
	f, ok := parseDouble(lit)
	if !ok {
		return nil, nonFinite(lit)
	}
	return AppendES6(dst, f), nil
}

func undologNumberT2(dst []byte, lit string) ([]byte, error) {
	f, ok := parseDouble(lit)
	if !ok {
		return nil, nonFinite(lit)
	}
	return AppendES6(dst, f), nil
}

func undologNumberP1(dst []byte, lit string) ([]byte, error) {
	if isIntegerLiteral(lit) {
		return undologPythonInt(dst, lit)
	}
	f, _ := parseDouble(lit)
	switch {
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...), nil
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...), nil
	}
	return AppendPythonRepr(dst, f), nil
}

func undologNumberR3(dst []byte, lit string) ([]byte, error) {
	f, isInt, err := undologSerdeNumber(lit)
	if err != nil {
		return nil, err
	}
	if isInt {
		return append(dst, lit...), nil
	}
	return appendRustES6(dst, f), nil
}

func undologNumberR1(dst []byte, lit string) ([]byte, error) {
	f, isInt, err := undologSerdeNumber(lit)
	if err != nil {
		return nil, err
	}
	if isInt {
		return append(dst, lit...), nil
	}
	return appendRyu(dst, f), nil
}

// undologSerdeNumber reads a JSON number literal as serde_json 1.x does
// without the float_roundtrip and arbitrary_precision features
// (Deserializer::parse_integer and the functions it calls). isInt reports
// that serde_json keeps it as a u64 or i64, in which case the literal
// itself is the decimal form serde_json writes; otherwise f is the f64 it
// produces, not always the nearest one.
func undologSerdeNumber(lit string) (f float64, isInt bool, err error) {
	s := undologSerdeScanner{s: lit}
	positive := true
	if s.peek() == '-' {
		positive = false
		s.i++
	}
	var sig uint64
	if s.peek() == '0' {
		s.i++
	} else {
		sig = uint64(s.peek() - '0')
		s.i++
		for isDigitByte(s.peek()) {
			d := uint64(s.peek() - '0')
			if overflowU64(sig, d) {
				f, err = s.longInteger(positive, sig, lit)
				return f, false, err
			}
			s.i++
			sig = sig*10 + d
		}
	}
	switch s.peek() {
	case '.':
		f, err = s.decimal(positive, sig, 0, lit)
		return f, false, err
	case 'e', 'E':
		f, err = s.exponent(positive, sig, 0, lit)
		return f, false, err
	}
	if positive {
		return 0, true, nil
	}
	// "Convert into a float if we underflow, or on -0."
	if neg := -int64(sig); neg >= 0 {
		return -float64(sig), false, nil
	}
	return 0, true, nil
}

type undologSerdeScanner struct {
	s string
	i int
}

func (s *undologSerdeScanner) peek() byte {
	if s.i < len(s.s) {
		return s.s[s.i]
	}
	return 0
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// overflowU64 is serde_json's overflow!(a * 10 + b, u64::MAX).
func overflowU64(a, b uint64) bool {
	const max = math.MaxUint64
	return a >= max/10 && (a > max/10 || b > max%10)
}

// overflowI32 is serde_json's overflow!(a * 10 + b, i32::MAX).
func overflowI32(a, b int32) bool {
	const max = math.MaxInt32
	return a >= max/10 && (a > max/10 || b > max%10)
}

// longInteger: digits past the 20th of the integer part only scale.
func (s *undologSerdeScanner) longInteger(positive bool, sig uint64, lit string) (float64, error) {
	var exp int32
	for {
		switch c := s.peek(); {
		case isDigitByte(c):
			s.i++
			exp++
		case c == '.':
			return s.decimal(positive, sig, exp, lit)
		case c == 'e' || c == 'E':
			return s.exponent(positive, sig, exp, lit)
		default:
			return undologSerdeF64(positive, sig, exp, lit)
		}
	}
}

func (s *undologSerdeScanner) decimal(positive bool, sig uint64, expBefore int32, lit string) (float64, error) {
	s.i++ // '.'
	var expAfter int32
	for isDigitByte(s.peek()) {
		d := uint64(s.peek() - '0')
		if overflowU64(sig, d) {
			// Further digits are dropped, not rounded.
			for isDigitByte(s.peek()) {
				s.i++
			}
			exp := expBefore + expAfter
			if c := s.peek(); c == 'e' || c == 'E' {
				return s.exponent(positive, sig, exp, lit)
			}
			return undologSerdeF64(positive, sig, exp, lit)
		}
		s.i++
		sig = sig*10 + d
		expAfter--
	}
	exp := expBefore + expAfter
	if c := s.peek(); c == 'e' || c == 'E' {
		return s.exponent(positive, sig, exp, lit)
	}
	return undologSerdeF64(positive, sig, exp, lit)
}

func (s *undologSerdeScanner) exponent(positive bool, sig uint64, start int32, lit string) (float64, error) {
	s.i++ // 'e'
	positiveExp := true
	switch s.peek() {
	case '+':
		s.i++
	case '-':
		s.i++
		positiveExp = false
	}
	exp := int32(s.peek() - '0')
	s.i++
	for isDigitByte(s.peek()) {
		d := int32(s.peek() - '0')
		if overflowI32(exp, d) {
			// parse_exponent_overflow: infinity is an error, anything
			// else underflows to a signed zero.
			if sig != 0 && positiveExp {
				return 0, nonFinite(lit)
			}
			if positive {
				return 0, nil
			}
			return math.Copysign(0, -1), nil
		}
		s.i++
		exp = exp*10 + d
	}
	var final int32
	if positiveExp {
		final = saturatingAddI32(start, exp)
	} else {
		final = saturatingAddI32(start, -exp)
	}
	return undologSerdeF64(positive, sig, final, lit)
}

func saturatingAddI32(a, b int32) int32 {
	s := int64(a) + int64(b)
	switch {
	case s > math.MaxInt32:
		return math.MaxInt32
	case s < math.MinInt32:
		return math.MinInt32
	}
	return int32(s)
}

// undologSerdeF64 is serde_json's f64_from_parts without float_roundtrip:
// significand as f64, then one multiplication or division by a power of
// ten from a table of 1e0..1e308 (below 1e-308, repeated divisions by
// 1e308 first).
func undologSerdeF64(positive bool, sig uint64, exp int32, lit string) (float64, error) {
	f := float64(sig)
	for {
		abs := int64(exp)
		if abs < 0 {
			abs = -abs
		}
		if exp != math.MinInt32 && abs < int64(len(undologPow10)) {
			if exp >= 0 {
				f *= undologPow10[abs]
				if math.IsInf(f, 0) {
					return 0, nonFinite(lit)
				}
			} else {
				f /= undologPow10[abs]
			}
			break
		}
		if f == 0 {
			break
		}
		if exp >= 0 {
			return 0, nonFinite(lit)
		}
		f /= 1e308
		exp += 308
	}
	if !positive {
		f = -f
	}
	return f, nil
}

// undologPow10 is serde_json's POW10 table: the doubles nearest to 1e0
// through 1e308 (Rust float literals are correctly rounded, and so is
// strconv.ParseFloat; math.Pow10 is not guaranteed to be).
var undologPow10 = func() (t [309]float64) {
	for i := range t {
		t[i], _ = strconv.ParseFloat("1e"+strconv.Itoa(i), 64)
	}
	return t
}()

// shortestDigits returns the shortest round-trip decimal digits of f > 0
// (Go picks the closest candidate, ties to even) and the decimal exponent
// of the first digit: f ≈ 0.d1d2d3... × 10^(exp+1), i.e. d1.d2d3 × 10^exp.
func shortestDigits(scratch []byte, f float64) (digits []byte, exp int) {
	b := strconv.AppendFloat(scratch[:0], f, 'e', -1, 64)
	// b is d[.ddd]e±XX
	e := len(b) - 1
	for b[e] != 'e' {
		e--
	}
	x, _ := strconv.Atoi(string(b[e+1:]))
	digits = b[:0]
	for _, c := range b[:e] {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	return digits, x
}

// rustTieUp turns Go's shortest digits of f > 0 into Rust's: the same,
// except when f lies exactly halfway between two shortest candidates and
// Go took the lower (even) one, where Rust's Dragon4 takes the upper.
func rustTieUp(f float64, digits []byte, exp int) []byte {
	n := len(digits)
	if n < 16 || digits[n-1]&1 == 1 {
		// A tie needs 17 significant digits; Go's choice in a tie is even.
		return digits
	}
	mant, e2 := math.Frexp(f) // f = mant × 2^e2, 0.5 <= mant < 1
	m := uint64(mant * (1 << 53))
	e2 -= 53
	tz := bits.TrailingZeros64(m)
	m >>= uint(tz)
	e2 += tz
	if e2 > -2 {
		// An integer or a half can never sit halfway between two
		// candidates that are both within half an ulp.
		return digits
	}
	// f = m × 2^e2 with m odd has its last nonzero decimal digit at
	// 10^e2; the midpoint D + 1/2 (D's last digit at 10^k) has it at
	// 10^(k-1).
	k := exp - n + 1
	if e2 != k-1 {
		return digits
	}
	// Exact test: 2m × 2^e2 == (2D+1) × 10^k.
	d, ok := new(big.Int).SetString(string(digits), 10)
	if !ok {
		return digits
	}
	rhs := d.Lsh(d, 1)
	rhs.Add(rhs, big.NewInt(1)) // 2D+1
	lhs := new(big.Int).SetUint64(m)
	lhs.Lsh(lhs, 1) // 2m, so f = 2m × 2^e2 / 2
	// 2m × 2^e2 == (2D+1) × 10^k  ⇔  2m × 10^-k == (2D+1) × 2^-e2  (e2 < 0)
	ten := big.NewInt(10)
	if k < 0 {
		lhs.Mul(lhs, new(big.Int).Exp(ten, big.NewInt(int64(-k)), nil))
	} else {
		rhs.Mul(rhs, new(big.Int).Exp(ten, big.NewInt(int64(k)), nil))
	}
	rhs.Lsh(rhs, uint(-e2))
	if lhs.Cmp(rhs) != 0 {
		return digits
	}
	// The last digit is even, so adding one never carries.
	digits[n-1]++
	return digits
}

// appendRustES6 writes f as effect.rs es6_format does: 0 for ±0;
// Rust's Display for 1e-6 <= |f| < 1e21; else Rust's LowerExp with '+'
// before a non-negative exponent. Digits are Rust's (ties upward).
func appendRustES6(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var scratch [32]byte
	digits, exp := shortestDigits(scratch[:], f)
	digits = rustTieUp(f, digits, exp)
	if f >= 1e-6 && f < 1e21 {
		return appendPlainDigits(dst, digits, exp)
	}
	dst = append(dst, digits[0])
	if len(digits) > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'e')
	if exp >= 0 {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, int64(exp), 10)
}

// appendPlainDigits writes d1.d2d3... × 10^exp without an exponent and
// without a trailing ".0".
func appendPlainDigits(dst, digits []byte, exp int) []byte {
	n := len(digits)
	switch {
	case exp < 0:
		dst = append(dst, '0', '.')
		for i := 0; i < -exp-1; i++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	case exp+1 >= n:
		dst = append(dst, digits...)
		for i := n; i < exp+1; i++ {
			dst = append(dst, '0')
		}
		return dst
	}
	dst = append(dst, digits[:exp+1]...)
	dst = append(dst, '.')
	return append(dst, digits[exp+1:]...)
}

// appendRyu writes f as ryu::Buffer::format_finite (ryu 1.x), which
// serde_json uses for f64: "0.0"/"-0.0" for zeros; plain with ".0" on
// whole values when the decimal exponent is in [-5, 15]; else d[.ddd]eN
// with no '+' and no padding.
func appendRyu(dst []byte, f float64) []byte {
	if math.Signbit(f) {
		dst = append(dst, '-')
		f = -f
	}
	if f == 0 {
		return append(dst, "0.0"...)
	}
	var scratch [32]byte
	digits, exp := shortestDigits(scratch[:], f)
	n := len(digits)
	if exp >= -5 && exp <= 15 {
		dst = appendPlainDigits(dst, digits, exp)
		if exp+1 >= n {
			dst = append(dst, '.', '0')
		}
		return dst
	}
	dst = append(dst, digits[0])
	if n > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'e')
	return strconv.AppendInt(dst, int64(exp), 10)
}
