package sigalg

import (
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"unsafe"

	asmbase64 "github.com/segmentio/asm/base64"
)

// Base64Encoding names one exact base64 variant for DecodeBase64.
type Base64Encoding int

// The four RFC 4648 variants.
const (
	Base64Std    Base64Encoding = iota + 1 // standard alphabet, padded
	Base64StdRaw                           // standard alphabet, no padding
	Base64URL                              // URL alphabet, padded
	Base64URLRaw                           // URL alphabet, no padding
)

// strictDecoder is one strict base64 variant. Decoding an ML-DSA signature
// (4.4 KB of text per receipt) with the standard library costs about a
// tenth of verifying it; the vectorised decoder of segmentio/asm does the
// bulk of the text about six times faster and hands the last block to the
// standard library's strict decoder. Its URL decoder also takes '/' as
// 63, so a value holding a character of the other alphabet goes to the
// standard library alone; then what is accepted is exactly what std
// accepts (FuzzVectorBase64 holds it to that). std also words the
// errors, whose offsets count from the start of the text.
type strictDecoder struct {
	std    *base64.Encoding
	vector *asmbase64.Encoding
	// foreign are the two characters of the other alphabet.
	foreign [2]byte
}

// decode writes s's bytes after dst's. Both decoders only read their
// source, so s is passed without a copy.
func (d strictDecoder) decode(dst []byte, s string) ([]byte, error) {
	src := unsafe.Slice(unsafe.StringData(s), len(s))
	n, room := len(dst), d.std.DecodedLen(len(s))
	dst = slices.Grow(dst, room)
	out := dst[n : n+room]
	if strings.IndexByte(s, d.foreign[0]) < 0 && strings.IndexByte(s, d.foreign[1]) < 0 { // IndexByte is vectorised
		if m, err := d.vector.Decode(out, src); err == nil {
			return dst[:n+m], nil
		}
	}
	m, err := d.std.Decode(out, src) // the standard library's verdict and wording
	if err != nil {
		return nil, err
	}
	return dst[:n+m], nil
}

func (d strictDecoder) decodeString(s string) ([]byte, error) { return d.decode(nil, s) }

// The strict decoders, made once: Strict copies the whole Encoding, and a
// signature is decoded per receipt.
var (
	strictStd    = strictDecoder{base64.StdEncoding.Strict(), asmbase64.StdEncoding.Strict(), [2]byte{'-', '_'}}
	strictStdRaw = strictDecoder{base64.RawStdEncoding.Strict(), asmbase64.RawStdEncoding.Strict(), [2]byte{'-', '_'}}
	strictURL    = strictDecoder{base64.URLEncoding.Strict(), asmbase64.URLEncoding.Strict(), [2]byte{'+', '/'}}
	strictURLRaw = strictDecoder{base64.RawURLEncoding.Strict(), asmbase64.RawURLEncoding.Strict(), [2]byte{'+', '/'}}
)

func (e Base64Encoding) encoding() *strictDecoder {
	switch e {
	case Base64Std:
		return &strictStd
	case Base64StdRaw:
		return &strictStdRaw
	case Base64URL:
		return &strictURL
	case Base64URLRaw:
		return &strictURLRaw
	}
	return nil
}

func (e Base64Encoding) String() string {
	switch e {
	case Base64Std:
		return "base64"
	case Base64StdRaw:
		return "base64 (unpadded)"
	case Base64URL:
		return "base64url (padded)"
	case Base64URLRaw:
		return "base64url"
	}
	return "unknown base64 variant"
}

func encodingErr(detail string, err error) error {
	return &Error{Reason: ReasonMalformedEncoding, Detail: detail, Err: err}
}

// DecodeBase64 decodes s in exactly the named variant. Go's decoders skip
// CR and LF even in strict mode; this one refuses them, so a value has a
// single spelling.
func DecodeBase64(s string, enc Base64Encoding) ([]byte, error) {
	e := enc.encoding()
	if e == nil {
		return nil, encodingErr("unknown base64 variant", nil)
	}
	if len(s) > MaxEncodedLen {
		return nil, encodingErr("base64 value too long", nil)
	}
	if strings.ContainsAny(s, "\r\n") {
		return nil, encodingErr("line break in "+enc.String(), nil)
	}
	b, err := e.decodeString(s)
	if err != nil {
		return nil, encodingErr("invalid "+enc.String(), err)
	}
	return b, nil
}

// DecodeBase64Any decodes standard or URL-alphabet base64, padded or not,
// because the corpus mixes them (Asqav signatures are unpadded base64url,
// its JWKS keys padded standard base64). Mixing the two alphabets in one
// value, misplaced padding, whitespace and non-zero trailing bits are
// refused.
func DecodeBase64Any(s string) ([]byte, error) { return AppendBase64Any(nil, s) }

// AppendBase64Any is DecodeBase64Any appending the bytes to dst, so that a
// caller decoding one signature per receipt can reuse one buffer.
func AppendBase64Any(dst []byte, s string) ([]byte, error) {
	return appendBase64Any(dst, s, MaxEncodedLen)
}

// DecodeBase64AnyUpTo is DecodeBase64Any for a value that is not a key or
// a signature, such as a DSSE payload, bounded by max characters instead of
// MaxEncodedLen.
func DecodeBase64AnyUpTo(s string, max int) ([]byte, error) { return appendBase64Any(nil, s, max) }

func appendBase64Any(dst []byte, s string, max int) ([]byte, error) {
	if len(s) > max {
		return nil, encodingErr("base64 value too long", nil)
	}
	// Fast path for the common case, unpadded base64url (every Asqav
	// signature): the strict raw URL decoder accepts exactly the values the
	// checks below would, except that it skips line breaks, which are
	// refused here first.
	if strings.IndexByte(s, '\n') < 0 && strings.IndexByte(s, '\r') < 0 { // IndexByte is vectorized; ContainsAny is not
		if b, err := strictURLRaw.decode(dst, s); err == nil {
			return b, nil
		}
	}
	body := strings.TrimRight(s, "=")
	pad := len(s) - len(body)
	std, url, bad := Base64Alphabets(body)
	if bad >= 0 {
		return nil, encodingErr("invalid base64 character at offset "+itoa(bad), nil)
	}
	if std && url {
		return nil, encodingErr("base64 mixes standard and URL alphabets", nil)
	}
	if pad > 2 || (pad > 0 && len(s)%4 != 0) {
		return nil, encodingErr("bad base64 padding", nil)
	}
	enc := strictStdRaw
	if url {
		enc = strictURLRaw
	}
	b, err := enc.decode(dst, body)
	if err != nil {
		return nil, encodingErr("invalid base64", err)
	}
	return b, nil
}

// DecodeHex decodes an even-length hex string written entirely in lowercase
// or entirely in uppercase. Mixed case is refused: no producer in the
// corpus writes it, and it gives one value several spellings.
func DecodeHex(s string) ([]byte, error) {
	if len(s) > MaxEncodedLen {
		return nil, encodingErr("hex value too long", nil)
	}
	var lower, upper bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'f':
			lower = true
		case c >= 'A' && c <= 'F':
			upper = true
		default:
			return nil, encodingErr("invalid hex character at offset "+itoa(i), nil)
		}
	}
	if lower && upper {
		return nil, encodingErr("hex mixes upper and lower case", nil)
	}
	if len(s)%2 != 0 {
		return nil, encodingErr("odd-length hex", nil)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, encodingErr("invalid hex", err)
	}
	return b, nil
}

// DecodeHexN is DecodeHex for a value that must decode to exactly n bytes.
func DecodeHexN(s string, n int) ([]byte, error) {
	if len(s) != 2*n {
		return nil, encodingErr("hex is "+itoa(len(s))+" characters, want "+itoa(2*n), nil)
	}
	return DecodeHex(s)
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

var base58Index = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(base58Alphabet); i++ {
		t[base58Alphabet[i]] = int8(i)
	}
	return t
}()

// decodeBase58 decodes the Bitcoin alphabet: each leading '1' is a zero
// byte, the rest is a big-endian base-58 number.
func decodeBase58(s string) ([]byte, error) {
	if len(s) > MaxBase58Len {
		return nil, encodingErr("base58 value too long", nil)
	}
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	// log(58)/log(256) < 0.733, so this many bytes always suffice.
	buf := make([]byte, (len(s)-zeros)*733/1000+1)
	for i := zeros; i < len(s); i++ {
		carry := int(base58Index[s[i]])
		if carry < 0 {
			return nil, encodingErr("invalid base58 character at offset "+itoa(i), nil)
		}
		for j := len(buf) - 1; j >= 0; j-- {
			carry += 58 * int(buf[j])
			buf[j] = byte(carry)
			carry >>= 8
		}
		if carry != 0 {
			return nil, encodingErr("base58 overflow", nil) // unreachable given the size bound
		}
	}
	start := 0
	for start < len(buf) && buf[start] == 0 {
		start++
	}
	out := make([]byte, zeros+len(buf)-start)
	copy(out[zeros:], buf[start:])
	return out, nil
}

// EncodeBase58 encodes b in the Bitcoin alphabet. It exists for tests and
// for printing did:key identifiers.
func EncodeBase58(b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	// log(256)/log(58) < 1.366
	digits := make([]byte, (len(b)-zeros)*1366/1000+1)
	n := 0
	for _, c := range b[zeros:] {
		carry := int(c)
		for j := 0; j < n; j++ {
			carry += int(digits[j]) << 8
			digits[j] = byte(carry % 58)
			carry /= 58
		}
		for carry > 0 {
			digits[n] = byte(carry % 58)
			n++
			carry /= 58
		}
	}
	out := make([]byte, zeros+n)
	for i := 0; i < zeros; i++ {
		out[i] = '1'
	}
	for i := 0; i < n; i++ {
		out[zeros+i] = base58Alphabet[digits[n-1-i]]
	}
	return string(out)
}

// DecodeMultibase decodes a multibase string and returns its base prefix
// with the bytes, so a dialect that requires one base (agentreceipts wants
// 'u') can refuse the others. Supported: 'z' base58btc, 'u' base64url,
// 'U' base64url padded, 'm' base64, 'M' base64 padded, 'f' and 'F' hex.
func DecodeMultibase(s string) (base byte, data []byte, err error) {
	if s == "" {
		return 0, nil, encodingErr("empty multibase string", nil)
	}
	base, rest := s[0], s[1:]
	switch base {
	case 'z':
		data, err = decodeBase58(rest)
	case 'u':
		data, err = DecodeBase64(rest, Base64URLRaw)
	case 'U':
		data, err = DecodeBase64(rest, Base64URL)
	case 'm':
		data, err = DecodeBase64(rest, Base64StdRaw)
	case 'M':
		data, err = DecodeBase64(rest, Base64Std)
	case 'f', 'F':
		data, err = DecodeHex(rest)
		if err == nil && strings.ContainsAny(rest, map[byte]string{'f': "ABCDEF", 'F': "abcdef"}[base]) {
			err = encodingErr("hex case does not match multibase prefix", nil)
		}
	default:
		return base, nil, encodingErr("unsupported multibase prefix "+quote(s[:1]), nil)
	}
	if err != nil {
		return base, nil, err
	}
	return base, data, nil
}

// Base64Alphabets tells which base64 alphabets the characters of s (its
// padding left off) come from: std when it has '+' or '/', url when it has
// '-' or '_'. bad is the offset of the first byte neither alphabet has, or
// -1. One table lookup a byte: anchor values and signatures are kilobytes.
func Base64Alphabets(s string) (std, url bool, bad int) {
	var seen byte
	for i := 0; i < len(s); i++ {
		k := base64Class[s[i]]
		if k == 0 {
			return false, false, i
		}
		seen |= k
	}
	return seen&base64Std != 0, seen&base64URL != 0, -1
}

const (
	base64Both byte = 1 << iota // in both alphabets: letters and digits
	base64Std                   // '+' and '/'
	base64URL                   // '-' and '_'
)

var base64Class = func() (t [256]byte) {
	for c := range t {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			t[c] = base64Both
		case c == '+' || c == '/':
			t[c] = base64Std
		case c == '-' || c == '_':
			t[c] = base64URL
		}
	}
	return t
}()
