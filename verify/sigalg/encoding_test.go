package sigalg_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify/sigalg"
)

// testBytes returns n deterministic bytes, starting with lead zero bytes.
func testBytes(n, lead int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := lead; i < n; i++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func TestBase64RoundTrip(t *testing.T) {
	t.Parallel()
	variants := []struct {
		name string
		enc  sigalg.Base64Encoding
		std  *base64.Encoding
	}{
		{"std", sigalg.Base64Std, base64.StdEncoding},
		{"std-raw", sigalg.Base64StdRaw, base64.RawStdEncoding},
		{"url", sigalg.Base64URL, base64.URLEncoding},
		{"url-raw", sigalg.Base64URLRaw, base64.RawURLEncoding},
	}
	for n := 0; n <= 70; n++ {
		data := testBytes(n, 0)
		for i, v := range variants {
			s := v.std.EncodeToString(data)
			got, err := sigalg.DecodeBase64(s, v.enc)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s n=%d: DecodeBase64(%q) = %x, %v", v.name, n, s, got, err)
			}
			got, err = sigalg.DecodeBase64Any(s)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s n=%d: DecodeBase64Any(%q) = %x, %v", v.name, n, s, got, err)
			}
			// The strict decoder refuses every other variant whenever the
			// spellings differ.
			for j, w := range variants {
				if i == j {
					continue
				}
				if s2 := w.std.EncodeToString(data); s2 != s {
					if _, err := sigalg.DecodeBase64(s2, v.enc); err == nil {
						t.Fatalf("%s accepted %s spelling %q", v.name, w.name, s2)
					}
				}
			}
		}
	}
}

func TestBase64Rejects(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"ab+_",       // mixed alphabets
		"QQ===",      // too much padding
		"QQ=",        // short padding
		"Q===",       // impossible length
		"Q",          // impossible length
		"QR==",       // non-zero trailing bits
		"QQ==\n",     // line break
		"QQ\n==",     // line break inside
		" QQ==",      // space
		"QQ=A",       // padding inside
		"QUJD\x00",   // NUL
		"QUJD\u00e9", // non-ASCII
	} {
		if b, err := sigalg.DecodeBase64Any(s); !errors.Is(err, sigalg.ErrMalformedEncoding) {
			t.Errorf("DecodeBase64Any(%q) = %x, %v; want malformed_encoding", s, b, err)
		}
	}
	if _, err := sigalg.DecodeBase64("QQ==\r\n", sigalg.Base64Std); !errors.Is(err, sigalg.ErrMalformedEncoding) {
		t.Errorf("CRLF accepted: %v", err)
	}
	if _, err := sigalg.DecodeBase64("QQ==", sigalg.Base64Encoding(0)); !errors.Is(err, sigalg.ErrMalformedEncoding) {
		t.Errorf("unknown variant accepted: %v", err)
	}
	if _, err := sigalg.DecodeBase64Any(strings.Repeat("A", sigalg.MaxEncodedLen+4)); !errors.Is(err, sigalg.ErrMalformedEncoding) {
		t.Errorf("over-long value accepted: %v", err)
	}
}

func TestHex(t *testing.T) {
	t.Parallel()
	data := testBytes(32, 1)
	lower := hex.EncodeToString(data)
	upper := strings.ToUpper(lower)
	for _, s := range []string{lower, upper} {
		got, err := sigalg.DecodeHexN(s, 32)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("DecodeHexN(%q) = %x, %v", s, got, err)
		}
	}
	if got, err := sigalg.DecodeHex(""); err != nil || len(got) != 0 {
		t.Errorf("empty: %x, %v", got, err)
	}
	mixed := lower[:10] + upper[10:]
	for _, s := range []string{mixed, lower[:63], lower[:62] + "g0", "0x" + lower[2:], lower[:62] + " a"} {
		if _, err := sigalg.DecodeHex(s); !errors.Is(err, sigalg.ErrMalformedEncoding) {
			t.Errorf("DecodeHex(%q): %v", s, err)
		}
	}
	if _, err := sigalg.DecodeHexN(lower, 31); !errors.Is(err, sigalg.ErrMalformedEncoding) {
		t.Errorf("wrong length accepted: %v", err)
	}
}

func TestBase58(t *testing.T) {
	t.Parallel()
	// Known answers (Bitcoin alphabet).
	for _, c := range []struct{ hex, b58 string }{
		{"", ""},
		{"00", "1"},
		{"0000", "11"},
		{"61", "2g"},
		{"626262", "a3gV"},
		{"636363", "aPEr"},
		{"00000000287fb4cd", "1111233QC4"},
		{"48656c6c6f20576f726c6421", "2NEpo7TZRRrLZSi2U"},
		{"ed01d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"},
	} {
		data, _ := hex.DecodeString(c.hex)
		if got := sigalg.EncodeBase58(data); got != c.b58 {
			t.Errorf("EncodeBase58(%s) = %q, want %q", c.hex, got, c.b58)
		}
		base, got, err := sigalg.DecodeMultibase("z" + c.b58)
		if err != nil || base != 'z' || !bytes.Equal(got, data) {
			t.Errorf("DecodeMultibase(z%s) = %c %x, %v; want %s", c.b58, base, got, err, c.hex)
		}
	}
	for n := 0; n < 80; n++ {
		data := testBytes(n, n%5)
		_, got, err := sigalg.DecodeMultibase("z" + sigalg.EncodeBase58(data))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("round trip n=%d: %x, %v", n, got, err)
		}
	}
	for _, s := range []string{"z0", "zO", "zI", "zl", "z+", "z 1"} {
		if _, _, err := sigalg.DecodeMultibase(s); !errors.Is(err, sigalg.ErrMalformedEncoding) {
			t.Errorf("DecodeMultibase(%q): %v", s, err)
		}
	}
}

func TestMultibase(t *testing.T) {
	t.Parallel()
	data := testBytes(20, 0)
	for _, c := range []struct {
		base byte
		text string
	}{
		{'u', base64.RawURLEncoding.EncodeToString(data)},
		{'U', base64.URLEncoding.EncodeToString(data)},
		{'m', base64.RawStdEncoding.EncodeToString(data)},
		{'M', base64.StdEncoding.EncodeToString(data)},
		{'f', hex.EncodeToString(data)},
		{'F', strings.ToUpper(hex.EncodeToString(data))},
	} {
		base, got, err := sigalg.DecodeMultibase(string(c.base) + c.text)
		if err != nil || base != c.base || !bytes.Equal(got, data) {
			t.Errorf("%c: %c %x, %v", c.base, base, got, err)
		}
	}
	// The prefix alone (agentreceipts-up-04 truncates a proofValue to "u")
	// decodes to nothing; the caller's size check rejects it.
	if base, got, err := sigalg.DecodeMultibase("u"); err != nil || base != 'u' || len(got) != 0 {
		t.Errorf(`"u": %c %x, %v`, base, got, err)
	}
	for _, s := range []string{"", "x00", "fAB", "Fab", "u" + base64.URLEncoding.EncodeToString(data)} {
		if _, _, err := sigalg.DecodeMultibase(s); !errors.Is(err, sigalg.ErrMalformedEncoding) {
			t.Errorf("DecodeMultibase(%q): %v", s, err)
		}
	}
}

// TestAppendBase64Any checks that decoding after a reused buffer's bytes
// keeps them, in both the fast path and the checked one, and that a
// refused value returns no bytes.
func TestAppendBase64Any(t *testing.T) {
	t.Parallel()
	want := testBytes(40, 0)
	buf := make([]byte, 0, 8)
	for _, s := range []string{base64.RawURLEncoding.EncodeToString(want), base64.StdEncoding.EncodeToString(want)} {
		got, err := sigalg.AppendBase64Any(append(buf[:0], "ab"...), s)
		if err != nil || !bytes.Equal(got, append([]byte("ab"), want...)) {
			t.Errorf("AppendBase64Any(%q) = %x, %v", s, got, err)
		}
		buf = got
	}
	if got, err := sigalg.AppendBase64Any(buf[:0], "ab+_"); got != nil || !errors.Is(err, sigalg.ErrMalformedEncoding) {
		t.Errorf("mixed alphabets: %x, %v", got, err)
	}
}
