package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/vectors"
)

// undologVector is one row of testdata/undolog/call-signatures.jsonl.
type undologVector struct {
	Name          string  `json:"name"`
	ArgsJSON      *string `json:"args_json"`
	CanonicalArgs *string `json:"canonical_args"`
}

func readUndoLogVectors(tb testing.TB) []undologVector {
	return vectors.ReadJSONL[undologVector](tb, "../../testdata/undolog/call-signatures.jsonl")
}

// TestUndoLogP3Vectors reproduces the canonical args of every official
// vector byte for byte. (The signatures are checked in package
// fingerprint.)
func TestUndoLogP3Vectors(t *testing.T) {
	t.Parallel()
	vecs := readUndoLogVectors(t)
	if len(vecs) != 96 {
		t.Fatalf("%d vectors, want 96", len(vecs))
	}
	for _, v := range vecs {
		t.Run(v.Name, func(t *testing.T) {
			if v.ArgsJSON == nil || v.CanonicalArgs == nil {
				t.Fatal("vector lacks args_json or canonical_args")
			}
			got, err := UndoLogP3().Canonicalize([]byte(*v.ArgsJSON))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != *v.CanonicalArgs {
				t.Fatalf("got  %s\nwant %s", got, *v.CanonicalArgs)
			}
		})
	}
}

func TestUndoLogLookup(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]Dialect{
		"undolog": UndoLogP3(), "undolog-p3": UndoLogP3(), "undolog-r3": UndoLogR3(),
		"undolog-p1": UndoLogP1(), "undolog-r1": UndoLogR1(), "undolog-t2": UndoLogT2(),
	} {
		if d, err := Lookup(name); err != nil || d != want {
			t.Errorf("Lookup(%q) = %v, %v", name, d, err)
		}
	}
}

// undologCase is one input and what each profile makes of it: the
// canonical text, or "!" followed by the Reason of the error.
type undologCase struct {
	name, in       string
	p3, r3, p1, r1 string
}

var undologCases = []undologCase{
	{name: "bmp", in: `{"k\u00e9y":"h\u00e9llo"}`,
		p3: `{"k\u00e9y":"h\u00e9llo"}`, r3: `{"kéy":"héllo"}`, p1: `{"kéy":"h\u00e9llo"}`, r1: `{"kéy":"héllo"}`},
	{name: "bmp raw input", in: `["é€"]`,
		p3: `["\u00e9\u20ac"]`, r3: `["é€"]`, p1: `["\u00e9\u20ac"]`, r1: `["é€"]`},
	{name: "astral", in: `{"\ud83d\ude00":"😀"}`,
		p3: `{"\ud83d\ude00":"\ud83d\ude00"}`, r3: `{"😀":"😀"}`, p1: `{"😀":"\ud83d\ude00"}`, r1: `{"😀":"😀"}`},
	{name: "controls and DEL", in: "[\"\\u0000\\u0001\\u001f\\b\\f\\n\\r\\t/\\/\u007f\"]",
		p3: "[\"\\u0000\\u0001\\u001f\\b\\f\\n\\r\\t//\u007f\"]",
		r3: "[\"\\u0000\\u0001\\u001f\\b\\f\\n\\r\\t//\u007f\"]",
		p1: "[\"\\u0000\\u0001\\u001f\\b\\f\\n\\r\\t//\\u007f\"]",
		r1: "[\"\\u0000\\u0001\\u001f\\b\\f\\n\\r\\t//\u007f\"]"},
	{name: "names escaped only by p3", in: `{"a\"b\n\\\u007f":1}`,
		p3: "{\"a\\\"b\\n\\\\\u007f\":1}", r3: "{\"a\"b\n\\\u007f\":1}", p1: "{\"a\"b\n\\\u007f\":1}", r1: "{\"a\"b\n\\\u007f\":1}"},
	{name: "member order is code point order", in: `{"＠":1,"😀":2,"b":3,"B":4}`,
		p3: `{"B":4,"b":3,"\uff20":1,"\ud83d\ude00":2}`, r3: `{"B":4,"b":3,"＠":1,"😀":2}`,
		p1: `{"B":4,"b":3,"＠":1,"😀":2}`, r1: `{"B":4,"b":3,"＠":1,"😀":2}`},
	{name: "duplicates last wins", in: `{"a":1,"b":0,"a":2}`,
		p3: `{"a":2,"b":0}`, r3: `{"a":2,"b":0}`, p1: `{"a":2,"b":0}`, r1: `{"a":2,"b":0}`},
	{name: "floats", in: `[1.0,1e21,1e-7,0.30000000000000004,-0.0,1e16,1e-5,1e-6,1e15,100,1.5e300,123.456e-2]`,
		p3: `[1,1e+21,1e-7,0.30000000000000004,0,10000000000000000,0.00001,0.000001,1000000000000000,100,1.5e+300,1.23456]`,
		r3: `[1,1e+21,1e-7,0.30000000000000004,0,10000000000000000,0.00001,0.000001,1000000000000000,100,1.5e+300,1.23456]`,
		p1: `[1.0,1e+21,1e-07,0.30000000000000004,-0.0,1e+16,1e-05,1e-06,1000000000000000.0,100,1.5e+300,1.23456]`,
		r1: `[1.0,1e21,1e-7,0.30000000000000004,-0.0,1e16,0.00001,1e-6,1000000000000000.0,100,1.5e300,1.23456]`},
	{name: "minus zero integer", in: `[-0,0]`,
		p3: `[0,0]`, r3: `[0,0]`, p1: `[0,0]`, r1: `[-0.0,0]`},
	{name: "integers around 2^64 and -2^63", in: `[18446744073709551615,18446744073709551616,-9223372036854775808,-9223372036854775809]`,
		p3: `[18446744073709551615,18446744073709551616,-9223372036854775808,-9223372036854775809]`,
		r3: `[18446744073709551615,18446744073709552000,-9223372036854775808,-9223372036854776000]`,
		p1: `[18446744073709551615,18446744073709551616,-9223372036854775808,-9223372036854775809]`,
		r1: `[18446744073709551615,1.8446744073709552e19,-9223372036854775808,-9.223372036854776e18]`},
	{name: "30-digit integer", in: `123456789012345678901234567890`,
		p3: `123456789012345678901234567890`, r3: `1.2345678901234568e+29`,
		p1: `123456789012345678901234567890`, r1: `1.2345678901234568e29`},
	{name: "serde reads 2^53+1.0 upward", in: `9007199254740993.0`,
		p3: `9007199254740992`, r3: `9007199254740994`, p1: `9007199254740992.0`, r1: `9007199254740994.0`},
	{name: "serde drops digits past the 20th", in: `0.100000000000000005551115123125782702118158340454101562500000001`,
		p3: `0.1`, r3: `0.1`, p1: `0.1`, r1: `0.1`},
	{name: "shortest-digit tie", in: `[1125899906842624.25,-1125899906842624.25,1125899906842624.75]`,
		p3: `[1125899906842624.2,-1125899906842624.2,1125899906842624.8]`,
		r3: `[1125899906842624.3,-1125899906842624.3,1125899906842624.8]`,
		p1: `[1125899906842624.2,-1125899906842624.2,1125899906842624.8]`,
		r1: `[1125899906842624.2,-1125899906842624.2,1125899906842624.8]`},
	{name: "overflow", in: `[1e400,-1e400]`,
		p3: "!non_finite", r3: "!non_finite", p1: `[Infinity,-Infinity]`, r1: "!non_finite"},
	{name: "exponent overflowing i32", in: `[1e99999999999,0e99999999999,1e-99999999999]`,
		p3: "!non_finite", r3: "!non_finite", p1: `[Infinity,0.0,0.0]`, r1: "!non_finite"},
	{name: "underflow", in: `[1e-400,-1e-400,5e-324]`,
		p3: `[0,0,5e-324]`, r3: `[0,0,5e-324]`, p1: `[0.0,-0.0,5e-324]`, r1: `[0.0,-0.0,5e-324]`},
	{name: "lone surrogate value", in: `["\ud800x\udfff"]`,
		p3: `["\ud800x\udfff"]`, r3: "!lone_surrogate", p1: `["\ud800x\udfff"]`, r1: "!lone_surrogate"},
	{name: "lone surrogate name", in: `{"\udc00":1}`,
		p3: `{"\udc00":1}`, r3: "!lone_surrogate", p1: "!lone_surrogate", r1: "!lone_surrogate"},
	{name: "top-level scalars", in: ` null `,
		p3: `null`, r3: `null`, p1: `null`, r1: `null`},
	{name: "python digit limit", in: strings.Repeat("9", 4301),
		p3: "!unsupported", r3: "!non_finite", p1: "!unsupported", r1: "!non_finite"},
	{name: "python digit limit ok", in: "-" + strings.Repeat("9", 4300),
		p3: "-" + strings.Repeat("9", 4300), r3: "!non_finite", p1: "-" + strings.Repeat("9", 4300), r1: "!non_finite"},
	{name: "depth 127", in: strings.Repeat("[", 127) + strings.Repeat("]", 127),
		p3: strings.Repeat("[", 127) + strings.Repeat("]", 127), r3: strings.Repeat("[", 127) + strings.Repeat("]", 127),
		p1: strings.Repeat("[", 127) + strings.Repeat("]", 127), r1: strings.Repeat("[", 127) + strings.Repeat("]", 127)},
	{name: "depth 128", in: strings.Repeat("[", 128) + strings.Repeat("]", 128),
		p3: strings.Repeat("[", 128) + strings.Repeat("]", 128), r3: "!too_deep",
		p1: strings.Repeat("[", 128) + strings.Repeat("]", 128), r1: "!too_deep"},
}

func TestUndoLogProfiles(t *testing.T) {
	t.Parallel()
	for _, c := range undologCases {
		t.Run(c.name, func(t *testing.T) {
			for _, p := range []struct {
				d    Dialect
				want string
			}{{UndoLogP3(), c.p3}, {UndoLogR3(), c.r3}, {UndoLogP1(), c.p1}, {UndoLogR1(), c.r1}} {
				got, err := p.d.Canonicalize([]byte(c.in))
				if reason, ok := strings.CutPrefix(p.want, "!"); ok {
					var ce *Error
					if !errors.As(err, &ce) || string(ce.Reason) != reason {
						t.Errorf("%s: got %q, %v; want error %s", p.d.Name(), got, err, reason)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", p.d.Name(), err)
					continue
				}
				if string(got) != p.want {
					t.Errorf("%s:\n got  %s\n want %s", p.d.Name(), got, p.want)
				}
			}
		})
	}
}

// TestUndoLogHandBuilt checks values that no parse produces: invalid UTF-8
// and lone surrogates put in by hand.
func TestUndoLogHandBuilt(t *testing.T) {
	t.Parallel()
	bad := StringValue("a\xffb")
	for _, d := range []Dialect{UndoLogP3(), UndoLogP1()} {
		if _, err := d.Append(nil, &bad); !errors.Is(err, &Error{Reason: ReasonInvalidUTF8}) {
			t.Errorf("%s: invalid UTF-8 string: %v", d.Name(), err)
		}
	}
	lone := ObjectValue(Member{Name: "\xed\xa0\x80", Value: StringValue("\xed\xb0\x80")})
	if got, err := UndoLogP3().Append(nil, &lone); err != nil || string(got) != `{"\ud800":"\udc00"}` {
		t.Errorf("p3: %s, %v", got, err)
	}
	for _, d := range []Dialect{UndoLogR3(), UndoLogR1(), UndoLogP1()} {
		if _, err := d.Append(nil, &lone); !errors.Is(err, &Error{Reason: ReasonLoneSurrogate}) {
			t.Errorf("%s: lone surrogate: %v", d.Name(), err)
		}
	}
}

// TestUndoLogRustFloats pins Rust's shortest-digit output on values next
// to the ties (checked against rustc 1.95's format!("{}") / "{:e}").
func TestUndoLogRustFloats(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{
		1125899906842624.25:    "1125899906842624.3",
		1125899906842625.25:    "1125899906842625.3",
		1125899906842624.5:     "1125899906842624.5",
		562949953421312.125:    "562949953421312.1",
		2251799813685248.5:     "2251799813685248.5",
		9007199254740992:       "9007199254740992",
		0.1:                    "0.1",
		1e21:                   "1e+21",
		1.5e-7:                 "1.5e-7",
		5e-324:                 "5e-324",
		1.7976931348623157e308: "1.7976931348623157e+308",
	} {
		if got := string(appendRustES6(nil, in)); got != want {
			t.Errorf("%v: got %s want %s", in, got, want)
		}
	}
}

func seedUndoLogFuzz(f *testing.F) {
	for _, v := range readUndoLogVectors(f) {
		if v.ArgsJSON != nil {
			f.Add([]byte(*v.ArgsJSON))
		}
	}
	for _, c := range undologCases {
		if len(c.in) < 1000 {
			f.Add([]byte(c.in))
		}
	}
}

// hasFraction reports whether v holds a number literal that serde_json
// reads as a float. Such a number is written as its shortest digits, and
// serde_json's default float reading is not correctly rounded, so reading
// the output again may give a neighbouring double: the Rust profiles are
// idempotent only without them.
func hasFraction(v *Value) bool {
	switch v.Kind {
	case Number:
		_, isInt, _ := undologSerdeNumber(v.Text)
		return !isInt
	case Array:
		for i := range v.Items {
			if hasFraction(&v.Items[i]) {
				return true
			}
		}
	case Object:
		for i := range v.Members {
			if hasFraction(&v.Members[i].Value) {
				return true
			}
		}
	}
	return false
}

// plainNames reports whether every member name in v can be written raw
// without changing its meaning: no `"`, no `\`, no control character.
// The profiles that write names unescaped (p1, r1, r3) give JSON, and JSON
// that reads back to the same names, only then.
func plainNames(v *Value) bool {
	switch v.Kind {
	case Array:
		for i := range v.Items {
			if !plainNames(&v.Items[i]) {
				return false
			}
		}
	case Object:
		for i := range v.Members {
			for _, c := range []byte(v.Members[i].Name) {
				if c < 0x20 || c == '"' || c == '\\' {
					return false
				}
			}
			if !plainNames(&v.Members[i].Value) {
				return false
			}
		}
	}
	return true
}

// fuzzUndoLog runs the checks every profile shares: no panic; when
// isJSON(input) the output must be JSON (encoding/json) and re-canonicalize
// without error, and when also idempotent(input) to the same bytes.
func fuzzUndoLog(f *testing.F, d Dialect, isJSON, idempotent func(v *Value) bool) {
	seedUndoLogFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := d.Parse(data)
		if err != nil {
			return
		}
		out, err := d.Append(nil, &v)
		if err != nil || !isJSON(&v) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON out: %q -> %q", data, out)
		}
		again, err := d.Canonicalize(out)
		if err != nil {
			t.Fatalf("canonical output rejected: %q -> %q: %v", data, out, err)
		}
		if idempotent(&v) && !bytes.Equal(out, again) {
			t.Fatalf("not idempotent: %q -> %q -> %q", data, out, again)
		}
	})
}

func always(*Value) bool { return true }

// FuzzUndoLogP3: the output is always ASCII JSON, and idempotent: integers
// are verbatim, ECMAScript floats read back to the same double, names and
// strings (lone surrogates included) come back as they were.
func FuzzUndoLogP3(f *testing.F) { fuzzUndoLog(f, UndoLogP3(), always, always) }

// FuzzUndoLogP1: JSON and idempotent unless a name needs escaping (names
// are written raw) or a number overflowed (written Infinity); Python repr
// floats read back exactly.
func FuzzUndoLogP1(f *testing.F) {
	ok := func(v *Value) bool { return plainNames(v) && !hasNonFinite(v) }
	fuzzUndoLog(f, UndoLogP1(), ok, ok)
}

// FuzzUndoLogR3: JSON unless a name needs escaping; idempotent only
// without floats too (see hasFraction).
func FuzzUndoLogR3(f *testing.F) {
	fuzzUndoLog(f, UndoLogR3(), plainNames, func(v *Value) bool { return !hasFraction(v) })
}

// FuzzUndoLogR1: as FuzzUndoLogR3.
func FuzzUndoLogR1(f *testing.F) {
	fuzzUndoLog(f, UndoLogR1(), plainNames, func(v *Value) bool { return !hasFraction(v) })
}

// FuzzUndoLogT2: as FuzzUndoLogP3: ASCII JSON, and idempotent, every
// number being a double written in ECMAScript form, which reads back to
// the same double.
func FuzzUndoLogT2(f *testing.F) { fuzzUndoLog(f, UndoLogT2(), always, always) }

// BenchmarkUndoLogP3 canonicalizes a ~1 KiB tool-call args object.
func BenchmarkUndoLogP3(b *testing.B) {
	raw := undologBenchArgs()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	var dst []byte
	for b.Loop() {
		var err error
		if dst, err = UndoLogP3().AppendCanonical(dst[:0], raw); err != nil {
			b.Fatal(err)
		}
	}
}

func undologBenchArgs() []byte {
	var sb strings.Builder
	sb.WriteString(`{"to":"alice@example.com","subject":"Quarterly report – Q3","amount":1234.56,"count":42,` +
		`"flags":{"urgent":true,"cc":null,"retries":3},"note":"line1\nline2\tcafé ☕","tags":[`)
	for i := 0; i < 24; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"id":`)
		sb.WriteString(strings.Repeat("7", 1+i%9))
		sb.WriteString(`,"w":0.`)
		sb.WriteString(strings.Repeat("3", 1+i%5))
		sb.WriteString(`,"k":"item-`)
		sb.WriteByte(byte('a' + i))
		sb.WriteString(`"}`)
	}
	sb.WriteString(`]}`)
	return []byte(sb.String())
}

// TestUndoLogT2 pins the TypeScript SDK's canonicalJson over JSON.parse:
// UTF-16 member order, ASCII escapes as the Python SDK's, and every
// number a double. The rows it wrote are in testdata/interop/undolog-effect.
func TestUndoLogT2(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{`{"ﬁle":"a","😀":"b"}`, `{"\ud83d\ude00":"b","\ufb01le":"a"}`},
		{`{"b":1,"a":{"d":[1.0,-0,1e21,0.000001,1e-7],"c":null}}`, `{"a":{"c":null,"d":[1,0,1e+21,0.000001,1e-7]},"b":1}`},
		{`{"id":9007199254740993}`, `{"id":9007199254740992}`},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`["\ud800","\u007f","é"]`, `["\ud800","` + "\x7f" + `","\u00e9"]`},
	}
	for _, c := range cases {
		got, err := UndoLogT2().Canonicalize([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("%s: got %s (%v), want %s", c.in, got, err, c.want)
		}
	}
	if _, err := UndoLogT2().Canonicalize([]byte(`{"x":1e400}`)); err == nil {
		t.Error("1e400: canonicalJson refuses Infinity, so must the profile")
	}
	// p3 keeps code-point order and exact integers.
	if got, _ := UndoLogP3().Canonicalize([]byte(`{"ﬁle":"a","😀":"b","id":9007199254740993}`)); string(got) != `{"id":9007199254740993,"\ufb01le":"a","\ud83d\ude00":"b"}` {
		t.Errorf("p3: %s", got)
	}
}
