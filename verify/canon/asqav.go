package canon

import (
	"time"

	"github.com/receiptverify/verify/internal/limits"
)

// AsqavUTF16Since is the moment the Asqav cloud signer switched its member
// order from code points to UTF-16 code units. Receipts issued before it
// were canonicalized with AsqavCodePoint.
func AsqavUTF16Since() time.Time { return asqavUTF16Since }

var asqavUTF16Since = time.Date(2026, 9, 2, 18, 5, 9, 0, time.UTC)

// Asqav is the Asqav cloud signing dialect as it is today: Python's
// json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
// allow_nan=False) with member names in UTF-16 order. Integer literals are
// written verbatim (Python ints are exact), other numbers as Python's
// repr(float) (500.0, 1e+16, 1e-05); numbers beyond a double, lone
// surrogates and duplicate names are rejected; 200 levels deep at most.
func Asqav() Dialect { return Dialect{asqav} }

var asqav = newAsqav("asqav", "Asqav cloud signer (Python json.dumps), UTF-16 member order", compareUTF16)

// AsqavCodePoint is the Asqav dialect with code-point member order, used by
// receipts issued before AsqavUTF16Since.
func AsqavCodePoint() Dialect { return Dialect{asqavCodePoint} }

var asqavCodePoint = newAsqav("asqav-codepoint", "Asqav cloud signer before 2026-09-02T18:05:09Z: code-point member order", compareCodePoints)

func init() {
	register(asqav, "asqav-utf16")
	register(asqavCodePoint)
}

// AsqavAt returns the Asqav dialect in force at issuedAt.
func AsqavAt(issuedAt time.Time) Dialect {
	if issuedAt.Before(AsqavUTF16Since()) {
		return AsqavCodePoint()
	}
	return Asqav()
}

func newAsqav(name, doc string, order func(a, b string) int) *dialect {
	return &dialect{
		name:  name,
		doc:   doc,
		parse: ParseOptions{MaxDepth: limits.AsqavMaxDepth, Duplicates: RejectDuplicates},
		w: writer{
			order:  order,
			name:   appendStringJCS,
			str:    appendStringJCS,
			number: appendNumberPython,
		},
	}
}

func appendNumberPython(dst []byte, lit string) ([]byte, error) {
	if isIntegerLiteral(lit) {
		return appendPythonInt(dst, lit), nil
	}
	f, ok := parseDouble(lit)
	if !ok {
		return nil, nonFinite(lit)
	}
	return AppendPythonRepr(dst, f), nil
}
