package canon

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRFC8785Pairs runs the RFC 8785 reference input/output pairs.
func TestRFC8785Pairs(t *testing.T) {
	inputs, err := filepath.Glob("../../testdata/jcs/input/*.json")
	if err != nil || len(inputs) != 6 {
		t.Fatalf("want the 6 RFC 8785 pairs, found %d (%v)", len(inputs), err)
	}
	for _, in := range inputs {
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			raw := readFile(t, in)
			want := readFile(t, filepath.Join("../../testdata/jcs/output", name))
			got, err := RFC8785().Canonicalize(raw)
			if err != nil {
				t.Fatalf("canonicalize: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("got  %q\nwant %q", got, want)
			}
		})
	}
}

// TestDoorsParity checks the Python/TypeScript parity pairs: the safe input
// canonicalizes identically under every dialect that accepts it; the
// divergent one (an integer above 2^53 and an astral/BMP key pair) gives the
// Python text under the code-point Asqav() dialect and is refused by RFC 8785.
func TestDoorsParity(t *testing.T) {
	dir := "../../testdata/asqav/doors-parity"
	safe := readFile(t, filepath.Join(dir, "parity-safe-input.json"))
	wantSafe := readFile(t, filepath.Join(dir, "parity-safe.jcs"))
	for _, d := range []Dialect{RFC8785(), Asqav(), AsqavCodePoint()} {
		got, err := d.Canonicalize(safe)
		if err != nil || !bytes.Equal(got, wantSafe) {
			t.Errorf("%s: parity-safe: got %q, %v; want %q", d.Name(), got, err, wantSafe)
		}
	}
	div := readFile(t, filepath.Join(dir, "divergence-input.json"))
	wantPy := readFile(t, filepath.Join(dir, "divergence-python.jcs"))
	if got, err := AsqavCodePoint().Canonicalize(div); err != nil || !bytes.Equal(got, wantPy) {
		t.Errorf("asqav-codepoint: divergence: got %q, %v; want %q", got, err, wantPy)
	}
	_, err := RFC8785().Canonicalize(div)
	if !errors.Is(err, &Error{Reason: ReasonUnsafeInteger}) {
		t.Errorf("rfc8785 must reject the integer above 2^53, got %v", err)
	}
}

func TestRFC8785Rejects(t *testing.T) {
	cases := []struct {
		in     string
		reason Reason
		path   string
	}{
		{`{"a":1,"a":2}`, ReasonDuplicateMember, `$.a`},
		{`{"a":{"b":[1,{"c":1,"c":1}]}}`, ReasonDuplicateMember, `$.a.b[1].c`},
		{"\"\xff\"", ReasonInvalidUTF8, `$`},
		{`"\ud800"`, ReasonLoneSurrogate, `$`},
		{`"\udc00\ud800"`, ReasonLoneSurrogate, `$`},
		{`{"n":9007199254740993}`, ReasonUnsafeInteger, `$.n`},
		{`[-9007199254740993]`, ReasonUnsafeInteger, `$[0]`},
		{`1e400`, ReasonNonFinite, `$`},
		{`01`, ReasonTrailingData, `$`},
		{`+1`, ReasonSyntax, `$`},
		{`1.`, ReasonSyntax, `$`},
		{`.5`, ReasonSyntax, `$`},
		{`NaN`, ReasonSyntax, `$`},
		{`{"a":1,}`, ReasonSyntax, `$`},
		{`[1,]`, ReasonSyntax, `$[1]`},
		{`"a` + "\n" + `"`, ReasonSyntax, `$`},
		{`{"a":1} x`, ReasonTrailingData, `$`},
		{``, ReasonSyntax, `$`},
		{"\uFEFF{}", ReasonSyntax, `$`}, // a byte order mark, refused as RFC 8259 allows; its message names it
		{strings.Repeat("[", 1001) + strings.Repeat("]", 1001), ReasonTooDeep, ``},
	}
	for _, c := range cases {
		_, err := RFC8785().Canonicalize([]byte(c.in))
		var ce *Error
		if !errors.As(err, &ce) || ce.Reason != c.reason {
			t.Errorf("%.40q: got %v, want reason %s", c.in, err, c.reason)
			continue
		}
		if c.path != "" && ce.Path != c.path {
			t.Errorf("%.40q: path %q, want %q", c.in, ce.Path, c.path)
		}
	}
	_, err := RFC8785().Canonicalize([]byte("\uFEFF{}"))
	if err == nil || !strings.Contains(err.Error(), "byte order mark") {
		t.Errorf("a leading byte order mark: got %v, want a message that names it", err)
	}
}

func TestRFC8785Accepts(t *testing.T) {
	cases := map[string]string{
		`{"n":9007199254740992}`:       `{"n":9007199254740992}`,
		`{"n":-9007199254740992}`:      `{"n":-9007199254740992}`,
		`1e300`:                        `1e+300`,
		`9007199254740993.0`:           `9007199254740992`,
		`-0`:                           `0`,
		`-0.0`:                         `0`,
		`1E-7`:                         `1e-7`,
		`0.000001`:                     `0.000001`,
		`1e21`:                         `1e+21`,
		`123456789012345678901`:        ``, // beyond 2^53, changed by a double: rejected
		`1000000010000000000`:          `1000000010000000000`,
		`9007199254740994`:             `9007199254740994`,
		`1152921504606846976`:          ``, // 2^60 exactly, but a double prints it ...847000
		`1152921504606847000`:          `1152921504606847000`,
		`"\u2028\u007f\/"`:             "\"\u2028\x7f/\"",
		`"\u001f\b"`:                   `"\u001f\b"`,
		`{"😀":1,"＠":1}`:                `{"😀":1,"＠":1}`,
		`{"＠":1,"😀":1}`:                `{"😀":1,"＠":1}`,
		`{"b":[],"a":{},"":null}`:      `{"":null,"a":{},"b":[]}`,
		" \t\r\n[true,false,null] \n ": `[true,false,null]`,
		`"\ud83d\ude00"`:               `"😀"`,
	}
	for in, want := range cases {
		got, err := RFC8785().Canonicalize([]byte(in))
		if want == "" {
			if err == nil {
				t.Errorf("%q: accepted as %q, want rejection", in, got)
			}
			continue
		}
		if err != nil || string(got) != want {
			t.Errorf("%q: got %q, %v; want %q", in, got, err, want)
		}
	}
}

var es6Lines = flag.Int("es6lines", 1_000_000, "lines of the ECMAScript number test to check (1000, 10000, 100000, 1000000, 10000000 or 100000000)")

// es6Checksums are the published SHA-256 values of the first N lines of the
// RFC 8785 ECMAScript number test.
var es6Checksums = map[int]string{
	1_000:       "be18b62b6f69cdab33a7e0dae0d9cfa869fda80ddc712221570f9f40a5878687",
	10_000:      "b9f7a8e75ef22a835685a52ccba7f7d6bdc99e34b010992cbc5864cd12be6892",
	100_000:     "22776e6d4b49fa294a0d0f349268e5c28808fe7e0cb2bcbe28f63894e494d4c7",
	1_000_000:   "49415fee2c56c77864931bd3624faad425c3c577d6d74e89a83bc725506dad16",
	10_000_000:  "b9f8a44a91d46813b21b9602e72f112613c91408db0b8341fb94603d9db135e0",
	100_000_000: "0f7dda6b0837dde083c5d6b896f7d62340c8a2415b0c7121d83145e08a755272",
}

// TestES6Numbers regenerates the RFC 8785 number test sequence and checks
// the SHA-256 of its first lines against the published value. Each number
// goes through the dialect's own number path (literal in, canonical out),
// with the literal written as Go's shortest 'g' form, which re-parses to
// the same double.
func TestES6Numbers(t *testing.T) {
	n := *es6Lines
	want, ok := es6Checksums[n]
	if !ok {
		t.Fatalf("-es6lines=%d has no published checksum", n)
	}
	if testing.Short() && n > 100_000 {
		n, want = 100_000, es6Checksums[100_000]
	}
	static := readLines(t, "../../testdata/jcs/es6-static-u64.txt")
	if len(static) != 168 {
		t.Fatalf("es6-static-u64.txt: %d values, want 168", len(static))
	}
	gen := es6Sequence{static: static}
	h := sha256.New()
	w := bufio.NewWriterSize(h, 1<<16)
	var line, lit []byte
	for i := 0; i < n; i++ {
		bits := gen.next(t)
		f := math.Float64frombits(bits)
		lit = strconv.AppendFloat(lit[:0], f, 'g', -1, 64)
		line = strconv.AppendUint(line[:0], bits, 16)
		line = append(line, ',')
		var err error
		line, err = appendNumberJCS(line, string(lit))
		if err != nil {
			t.Fatalf("line %d: %x: %v", i+1, bits, err)
		}
		line = append(line, '\n')
		w.Write(line)
	}
	w.Flush()
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Fatalf("SHA-256 of the first %d lines: %s, want %s", n, got, want)
	}
}

// es6Sequence yields the bits of the number test: the static values, the
// 2000 smallest normals, then words of an iterated SHA-256 block, skipping
// zero, NaN and infinities.
type es6Sequence struct {
	static  []string
	i       int
	block   [32]byte
	pending []uint64
}

func (s *es6Sequence) next(t *testing.T) uint64 {
	if s.i < len(s.static) {
		v, err := strconv.ParseUint(s.static[s.i], 16, 64)
		if err != nil {
			t.Fatalf("es6-static-u64.txt line %d: %v", s.i+1, err)
		}
		s.i++
		return v
	}
	if s.i < len(s.static)+2000 {
		v := uint64(0x0010000000000000) + uint64(s.i-len(s.static))
		s.i++
		return v
	}
	for {
		if len(s.pending) == 0 {
			s.block = sha256.Sum256(s.block[:])
			for k := 0; k < 4; k++ {
				s.pending = append(s.pending, binary.LittleEndian.Uint64(s.block[8*k:]))
			}
		}
		v := s.pending[0]
		s.pending = s.pending[1:]
		f := math.Float64frombits(v)
		if v&^(1<<63) == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		return v
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	return strings.Fields(string(readFile(t, path)))
}
