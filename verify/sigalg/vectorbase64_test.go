package sigalg

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"testing"
)

// decoders names every strict variant with the standard library's strict
// decoder of the same variant, the reference the vectorised one must match.
var decoders = []struct {
	name string
	d    strictDecoder
}{
	{"std", strictStd}, {"std-raw", strictStdRaw}, {"url", strictURL}, {"url-raw", strictURLRaw},
}

// checkVectorBase64 requires strictDecoder.decode to give, for s, what the
// standard library's strict decoder gives: the same bytes, or an error
// with the same text (the same offset).
func checkVectorBase64(t *testing.T, s string) {
	t.Helper()
	for _, v := range decoders {
		want, wantErr := v.d.std.DecodeString(s)
		got, err := v.d.decode([]byte("prefix"), s)
		switch {
		case (err == nil) != (wantErr == nil):
			t.Fatalf("%s %q: error %v, standard library %v", v.name, s, err, wantErr)
		case err != nil && err.Error() != wantErr.Error():
			t.Fatalf("%s %q: error %q, standard library %q", v.name, s, err, wantErr)
		case err == nil && !bytes.Equal(got, append([]byte("prefix"), want...)):
			t.Fatalf("%s %q: %x, standard library %x", v.name, s, got, want)
		}
	}
}

// TestVectorBase64MatchesStd decodes valid encodings of every length up to
// a few vector blocks, and the same with one byte replaced anywhere by a
// character of the other alphabet, padding, a line break or junk, in all
// four variants.
func TestVectorBase64MatchesStd(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	swaps := []byte("+/-_=\n\r .\x00\xff\"A")
	for n := 0; n < 400; n++ {
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = byte(rng.Uint32())
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			s := enc.EncodeToString(raw)
			checkVectorBase64(t, s)
			if len(s) == 0 {
				continue
			}
			for range 8 {
				b := []byte(s)
				b[rng.IntN(len(b))] = swaps[rng.IntN(len(swaps))]
				checkVectorBase64(t, string(b))
			}
		}
	}
}

// FuzzVectorBase64 holds the vectorised decoder to the standard library's
// strict one on any text.
func FuzzVectorBase64(f *testing.F) {
	long := base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 0xef, 0x01}, 40))
	for _, s := range []string{"", "QQ==", "QQ", "_-8", "+/8=", long, long[:50] + "/" + long[51:], long[:70] + "\n" + long[70:], long + "=="} {
		f.Add(s)
	}
	f.Fuzz(checkVectorBase64)
}
